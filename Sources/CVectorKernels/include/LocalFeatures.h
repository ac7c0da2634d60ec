// Local features for geometric verification: an ORB-style detector and binary descriptor (FAST-9
// corners on a small image pyramid, ranked by the Harris response, oriented by the intensity
// centroid, described by 256 box-smoothed intensity comparisons rotated to that orientation),
// Hamming matching with a ratio test, and RANSAC over affine maps refined to a homography.
//
// Plain C, no outside dependencies, no global state: every function is reentrant. Why our own
// rather than Debian's libvlfeat (SIFT): on this project's 2-core machines vl_sift took 25–140 ms
// for one 256–320 px picture, so a query could not even describe itself within the 15 ms budget
// of print + verification; this extractor takes a few milliseconds at 320 px, and its 32-byte
// descriptors are a quarter of SIFT's 128 bytes in the index (bench/quality/README.md).
#ifndef LOCALFEATURES_H
#define LOCALFEATURES_H

#include <stddef.h>
#include <stdint.h>

/// The bytes of one descriptor (256 binary tests).
#define LF_DESCRIPTOR_BYTES 32

/// Finds at most `max_keypoints` keypoints of the greyscale image `gray` (`width` × `height`,
/// rows `width` bytes apart) and describes them.
///
/// Writes each keypoint's position in the image's own pixels as two floats (x, y) at
/// `positions[2 * i]` and its descriptor at `descriptors + LF_DESCRIPTOR_BYTES * i`, strongest
/// first. Returns the number written (0 for an image too small or too flat to have any, or when
/// scratch memory cannot be allocated).
int lf_extract(
    const uint8_t *gray, int width, int height, int max_keypoints, float *positions, uint8_t *descriptors);

/// Matches each query descriptor with its nearest candidate descriptor (Hamming distance) when that
/// is at most `max_distance` bits and below `ratio` times the second nearest; a candidate keeps
/// only its best query. Writes (query index, candidate index) pairs into `pairs` (room for
/// `2 * query_count` values) and returns their number.
int lf_match(
    const uint8_t *query, int query_count, const uint8_t *candidate, int candidate_count, int max_distance,
    float ratio, int32_t *pairs);

/// The largest set of matched pairs one plane-to-plane map explains: RANSAC over affine maps from
/// candidate to query positions (three pairs each; mirror maps, near-degenerate ones, and scales
/// outside 1/6…6 refused), the best refined by a least-squares homography over its inliers.
///
/// A pair is an inlier when the map puts the candidate position within `tolerance` pixels of the
/// query position. The random sequence is fixed by `seed`, so answers are reproducible. Returns
/// the number of inliers of the best map (0 with fewer than four pairs).
int lf_verify(
    const float *query_positions, const float *candidate_positions, const int32_t *pairs, int pair_count,
    float tolerance, int iterations, uint32_t seed);

#endif

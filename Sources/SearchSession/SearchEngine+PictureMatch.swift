extension SearchEngine {
    /// What a descriptor's pixels answer: their built-in print, and the catalog picture
    /// ``ImageMatchRule`` accepts for them, if any.
    struct PictureAnswer {
        /// The print of the frame, or of the screenshot's region that stands for it.
        let print: FeaturePrint
        /// The answered picture's document and print distance; `nil` when nothing matches.
        let match: (doc: Int32, distance: Float)?
    }

    /// Answers a pixel buffer by ``ImageMatchRule``: the nearest catalog picture when its print is
    /// within the strict distance of this catalog, else the shortlisted picture whose keypoints
    /// one plane-to-plane map carries onto the query's (``GeometricVerifier``), else none.
    ///
    /// A screenshot's content region (see ``pixelPrintAndRegion(of:source:in:)``) is held to the
    /// strict distance or verification, its keypoints taken from the region's own pixels. The query's keypoints are
    /// found only when a candidate needs verifying: a near-exact picture costs its print alone.
    static func pictureAnswer(of buffer: PixelBuffer, source: Source, in snapshot: CatalogSnapshot) -> PictureAnswer {
        let (print, region) = pixelPrintAndRegion(of: buffer, source: source, in: snapshot)
        let gap = snapshot.medianPrintGap ?? 0
        let widest = max(ImageMatchRule.strictFraction, ImageMatchRule.poorFraction) * gap
        let shortlist = Ranker.nearest(
            print, in: snapshot, maxDistance: max(widest, ImageMatchRule.looseDistance),
            limit: ImageMatchRule.shortlistCount)
        var queryFeatures: LocalFeatures?
        // A screenshot's region was the nearest of many regions to some catalog picture: it
        // must pass the strict distance or verification, never the feature-poor allowance (with
        // it, 0.882 of the test families' held-out screenshots stayed empty instead of 1.000).
        let keypoints = { (doc: Int32) -> Int in
            guard region == nil else { return .max }
            let (segment, local) = snapshot.locate(doc)
            return snapshot.segments[segment].localFeatures.keypointCount(of: local)
        }
        let match = ImageMatchRule.choose(shortlist, medianCatalogGap: gap, keypoints: keypoints) { doc in
            let query = queryFeatures ?? localFeatures(of: buffer, in: region)
            queryFeatures = query
            let (segment, local) = snapshot.locate(doc)
            let candidate = snapshot.segments[segment].localFeatures.features(of: local)
            return query.positions.withUnsafeBufferPointer { positions in
                query.descriptors.withUnsafeBufferPointer { descriptors in
                    GeometricVerifier.inliers(query: (positions, descriptors), candidate: candidate)
                }
            }
        }
        return PictureAnswer(print: print, match: match)
    }

    /// The keypoints of the whole frame, or of a screenshot's region.
    private static func localFeatures(of buffer: PixelBuffer, in region: ContentRegions.Region?) -> LocalFeatures {
        guard let region else { return LocalFeatures.extract(buffer) }
        return LocalFeatures.extract(reduced: reduce(buffer, to: region, maxSide: LocalFeatures.workingSide))
    }
}

/// When a picture is answered, and with which catalog picture: the global print first, geometry
/// for what the print cannot settle.
///
/// - At print distance ≤ ``strictFraction`` × the catalog's median nearest-other distance (the
///   distance from each catalog picture to its nearest other one: the catalog's own scale, since
///   pictures of one family, and strangers to it, lie closer together) the nearest catalog
///   picture is the answer, unverified: the print is mirror-invariant and survives blur, JPEG and
///   down-scaling, where keypoints do not.
/// - Otherwise the first ``shortlistCount`` nearest pictures within ``looseDistance`` are verified
///   (``GeometricVerifier``), and the one with the most inliers is the answer when it has at least
///   ``minimumInliers``: a corner crop, a rotation or a tilted photo of the picture.
/// - A nearest picture with fewer than ``poorKeypoints`` keypoints (soft gradients and shapes,
///   where a crop keeps no corner to verify) is answered up to ``poorFraction`` × the median gap,
///   unverified: a looser strict distance of its own.
/// - Else nothing matches, and the sheet stays empty rather than showing a weak match.
///
/// Every number was chosen by bench/quality/geometry.py on the TUNE families only (scikit-image
/// samples and Debian theme artwork, with UKUI wallpapers held out): the best mean recall@1 among
/// settings that keep ≥ 0.95 of the held-out pictures empty even were they twice as close and
/// twice as lucky in chance inliers. bench/quality/README.md has what this gives on the test
/// families.
@_spi(Benchmarks) public enum ImageMatchRule {
    /// The strict print distance, as a fraction of the catalog's median nearest-other distance.
    public static let strictFraction: Float = 0.4
    /// How many of the nearest pictures are verified when the nearest is not that close.
    public static let shortlistCount = 5
    /// The print distance beyond which a picture is not worth verifying.
    public static let looseDistance: Float = 0.15
    /// The fewest inliers that make a verified match (chance leaves at most 3 on the tune
    /// families' held-out pictures, 8 on the test families', where 0.980 stay empty).
    public static let minimumInliers = 7

    /// A catalog picture with fewer keypoints than this is feature-poor (see ``poorFraction``): of
    /// ``LocalFeatures/maximumCount``, a textured picture keeps them all. A picture without any
    /// stored (an entity written through the API brings a print, not pixels) counts as
    /// feature-poor too: it can never be verified either.
    public static let poorKeypoints = 75
    /// The strict print distance of a feature-poor picture, as a fraction of the catalog's median
    /// nearest-other distance (chosen on tune after the rest of the rule, with the same margin;
    /// on the test families it brings back a smooth wallpaper's centre crop and corner crop).
    public static let poorFraction: Float = 0.75

    /// The answer among `shortlist` (nearest first, by print distance), if any.
    ///
    /// - Parameters:
    ///   - shortlist: The nearest catalog pictures by print distance, nearest first.
    ///   - medianCatalogGap: The catalog's median nearest-other print distance.
    ///   - keypoints: How many keypoints a shortlisted document's picture has; asked only for the
    ///     nearest, beyond the strict distance.
    ///   - inliers: The verified inliers of a shortlisted document; asked only when the nearest is
    ///     not within the strict distance, and only for the first ``shortlistCount`` within
    ///     ``looseDistance``.
    /// - Returns: The answered document and its print distance, or `nil` when nothing matches.
    public static func choose(
        _ shortlist: [(doc: Int32, distance: Float)], medianCatalogGap: Float,
        keypoints: (Int32) -> Int = { _ in .max }, inliers: (Int32) -> Int
    ) -> (doc: Int32, distance: Float)? {
        guard let nearest = shortlist.first else { return nil }
        if nearest.distance <= strictFraction * medianCatalogGap { return nearest }
        if nearest.distance <= poorFraction * medianCatalogGap && keypoints(nearest.doc) < poorKeypoints {
            return nearest
        }
        var best: (hit: (doc: Int32, distance: Float), inliers: Int)?
        for hit in shortlist.prefix(shortlistCount) where hit.distance <= looseDistance {
            let count = inliers(hit.doc)
            if count > (best?.inliers ?? -1) { best = (hit, count) }
        }
        guard let best, best.inliers >= minimumInliers else { return nil }
        return best.hit
    }
}

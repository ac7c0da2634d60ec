/// One classification label.
public struct Label: Hashable, Sendable, Codable {
    /// The label text as the classifier produced it, e.g. `guitar`.
    public var text: String
    /// Classifier confidence in (0, 1]; 0 means "not given" and counts as 1.
    public var confidence: Float

    /// Creates a label.
    public init(_ text: String, confidence: Float = 1) {
        self.text = text
        self.confidence = confidence
    }

    /// The confidence used for ranking: 0 ("not given") counts as 1.
    var weight: Float { confidence > 0 ? min(confidence, 1) : 1 }
}

/// The layout of each pixel; all formats are 8 bits per channel.
public enum PixelFormat: String, Hashable, Sendable, CaseIterable {
    /// Blue, green, red, alpha.
    case bgra8
    /// Red, green, blue, alpha.
    case rgba8
    /// Red, green, blue.
    case rgb8
    /// One grey byte.
    case gray8

    /// Bytes per pixel.
    public var bytesPerPixel: Int {
        switch self {
        case .bgra8, .rgba8: 4
        case .rgb8: 3
        case .gray8: 1
        }
    }
}

/// An uncompressed image, row by row, top row first.
public struct PixelBuffer: Hashable, Sendable {
    /// The largest width or height accepted.
    public static let maximumSide = 16_384

    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Bytes from the start of one row to the next.
    public var bytesPerRow: Int
    /// The pixel layout.
    public var format: PixelFormat
    /// `height × bytesPerRow` bytes; the last row may stop after its last pixel.
    public var bytes: [UInt8]

    /// Creates a pixel buffer; ``validate()`` checks it.
    public init(width: Int, height: Int, bytesPerRow: Int, format: PixelFormat, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.format = format
        self.bytes = bytes
    }

    /// Checks dimensions, stride and length.
    ///
    /// - Throws: ``SearchError/Code/invalidArgument`` naming the first problem.
    public func validate() throws(SearchError) {
        guard width >= 1, height >= 1 else {
            throw .invalid("pixel buffer dimensions \(width)×\(height) must be at least 1×1")
        }
        guard width <= Self.maximumSide, height <= Self.maximumSide else {
            throw .invalid("pixel buffer dimensions \(width)×\(height) exceed \(Self.maximumSide) per side")
        }
        let minimumRow = width * format.bytesPerPixel
        guard bytesPerRow >= minimumRow else {
            throw .invalid("bytes per row \(bytesPerRow) is less than width × \(format.bytesPerPixel) = \(minimumRow)")
        }
        let needed = (height - 1) * bytesPerRow + minimumRow
        guard bytes.count >= needed else {
            throw .invalid(
                "pixel data has \(bytes.count) bytes; \(width)×\(height) at \(bytesPerRow) per row needs \(needed)")
        }
    }
}

/// Where a descriptor came from.
public enum Source: String, Hashable, Sendable, Codable {
    /// Not said.
    case unspecified
    /// A live camera frame or photo.
    case camera
    /// A screenshot.
    case screenshot
}

/// What the system hands the app after a visual lookup: labels and/or pixels, or a print.
public struct Descriptor: Hashable, Sendable {
    /// Classification labels, most confident first.
    public var labels: [Label]
    /// The captured image, when the system provides one.
    public var pixelBuffer: PixelBuffer?
    /// A print computed by the client's own model.
    public var featurePrint: FeaturePrint?
    /// Where it came from.
    public var source: Source
    /// BCP 47 locale, e.g. `de-DE`; picks localized titles.
    public var locale: String

    /// Creates a descriptor.
    public init(
        labels: [Label] = [], pixelBuffer: PixelBuffer? = nil, featurePrint: FeaturePrint? = nil,
        source: Source = .unspecified, locale: String = ""
    ) {
        self.labels = labels
        self.pixelBuffer = pixelBuffer
        self.featurePrint = featurePrint
        self.source = source
        self.locale = locale
    }

    /// Checks everything that does not need the catalog (the print length is checked against the
    /// catalog's model dimension by the engine).
    ///
    /// - Throws: ``SearchError/Code/invalidArgument``.
    public func validate() throws(SearchError) {
        for (i, label) in labels.enumerated() {
            if !label.confidence.isFinite || label.confidence < 0 || label.confidence > 1 {
                throw .invalid("label \(i) (\(label.text)) has confidence \(label.confidence); it must be in [0, 1]")
            }
        }
        try pixelBuffer?.validate()
        if let featurePrint {
            if featurePrint.model.isEmpty { throw .invalid("feature print has no model") }
            if featurePrint.values.isEmpty {
                throw .invalid("feature print of model \(featurePrint.model) has no values")
            }
            if let index = featurePrint.values.firstIndex(where: { !$0.isFinite }) {
                throw .invalid("feature print value \(index) is \(featurePrint.values[index]); values must be finite")
            }
        }
    }
}

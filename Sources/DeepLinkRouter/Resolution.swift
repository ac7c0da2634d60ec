/// Why a URL or target is refused rather than resolved or sent to the fallback.
public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason code; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case invalidURL, tooLong, forbiddenScheme, credentials, hostNotAllowed, invalidParameter
            case unknownEntityType, notFound
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Not a URL, or one with invalid percent-encoding.
        public static let invalidURL = Code(.invalidURL)
        /// Longer than the router accepts.
        public static let tooLong = Code(.tooLong)
        /// A scheme that is neither an app scheme nor https (`javascript:`, `data:`, `http:` …).
        public static let forbiddenScheme = Code(.forbiddenScheme)
        /// A user name or password in the URL.
        public static let credentials = Code(.credentials)
        /// An https host (or port) not on the allow-list.
        public static let hostNotAllowed = Code(.hostNotAllowed)
        /// A decoded value holds control characters, invalid UTF-8 or a `..` segment; or an
        /// open-intent id is not valid for its route.
        public static let invalidParameter = Code(.invalidParameter)
        /// No route matches and the table has no fallback.
        public static let notFound = Code(.notFound)
        /// An open-intent target of a type without a route.
        public static let unknownEntityType = Code(.unknownEntityType)

        public var description: String { String(describing: wrapped) }
    }

    /// The reason code.
    public var code: Code
    /// A human-readable explanation.
    public var message: String

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - code: The reason code.
    ///   - message: A human-readable explanation.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The outcome of resolving a URL or an open-intent target.
public enum Resolution: Hashable, Sendable, CustomStringConvertible {
    /// A route matched.
    case destination(Destination)
    /// No route matched: the fallback destination, with `fallbackReason` set.
    case fallback(Destination)
    /// The input is refused.
    case refused(Refusal)

    /// The destination, matched or fallback.
    public var destination: Destination? {
        switch self {
        case .destination(let destination), .fallback(let destination): destination
        case .refused: nil
        }
    }

    /// The refusal, if refused.
    public var refusal: Refusal? {
        if case .refused(let refusal) = self { return refusal }
        return nil
    }

    public var description: String {
        switch self {
        case .destination(let destination): "destination \(destination)"
        case .fallback(let destination): "fallback \(destination)"
        case .refused(let refusal): "refused (\(refusal.code)): \(refusal.message)"
        }
    }
}

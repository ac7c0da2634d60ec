/// Why a link cannot be generated.
public struct LinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case unknownRoute, unknownEntityType, missingParameter, unknownParameter, invalidValue
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// No route has that name.
        public static let unknownRoute = Code(.unknownRoute)
        /// No route opens that entity type.
        public static let unknownEntityType = Code(.unknownEntityType)
        /// A path parameter has no value.
        public static let missingParameter = Code(.missingParameter)
        /// A value is given for a parameter the route does not have.
        public static let unknownParameter = Code(.unknownParameter)
        /// A value does not fit its parameter's type, or cannot round-trip through a URL.
        public static let invalidValue = Code(.invalidValue)

        public var description: String { String(describing: wrapped) }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation naming the route and parameter.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A human-readable explanation.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The canonical links of a destination.
public struct Link: Hashable, Sendable {
    /// The app-scheme URL (`music://album/abbey-road`), when the table has a scheme.
    public var appURL: String?
    /// The universal link (`https://music.example.com/album/abbey-road`), when the table has a host.
    public var universalURL: String?

    /// Creates a pair of links.
    ///
    /// - Parameters:
    ///   - appURL: The app-scheme URL.
    ///   - universalURL: The universal link.
    public init(appURL: String?, universalURL: String?) {
        self.appURL = appURL
        self.universalURL = universalURL
    }

    /// The preferred URL: the app-scheme one, otherwise the universal link.
    public var canonicalURL: String { appURL ?? universalURL ?? "" }

    /// Builds both links for a route and parameter values, validating every value.
    static func make(info: RouteInfo, parameters: [Parameter]) throws(LinkError) -> Link {
        var values: [String: String] = [:]
        for parameter in parameters { values[parameter.name] = parameter.value }
        return try make(info: info, values: values)
    }

    static func make(info: RouteInfo, values: [String: String]) throws(LinkError) -> Link {
        let route = "route \"\(info.name)\""
        for name in values.keys.sorted()
        where !info.pathParameters.contains(where: { $0.name == name })
            && !info.query.contains(where: { $0.name == name })
        {
            throw LinkError(code: .unknownParameter, message: "\(route) has no parameter \"\(name)\"")
        }
        var segments: [String] = []
        for segment in info.segments {
            switch segment {
            case .literal(let text): segments.append(text)
            case .parameter(let name, let type):
                guard let value = values[name] else {
                    throw LinkError(code: .missingParameter, message: "\(route) needs a value for \"\(name)\"")
                }
                if let problem = valueProblem(value, type: type, inPath: true) {
                    throw LinkError(
                        code: .invalidValue,
                        message: "parameter \"\(name)\" of \(route): \(value.debugDescription) \(problem)")
                }
                if type.kind == .catchAll {
                    segments += value.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                } else {
                    segments.append(value)
                }
            }
        }
        var query: [UInt8] = []
        for spec in info.query {
            guard let value = values[spec.name], value != spec.defaultValue else { continue }
            if let problem = valueProblem(value, type: spec.type, inPath: false) {
                throw LinkError(
                    code: .invalidValue,
                    message: "parameter \"\(spec.name)\" of \(route): \(value.debugDescription) \(problem)")
            }
            query.append(query.isEmpty ? 0x3F : 0x26)
            percentEncode(spec.name.utf8, keeping: ByteSets.formKeep, spaceAsPlus: true, into: &query)
            query.append(0x3D)
            percentEncode(value.utf8, keeping: ByteSets.formKeep, spaceAsPlus: true, into: &query)
        }
        let queryText = String(decoding: query, as: UTF8.self)
        return Link(
            appURL: info.appScheme.map { exampleURL(segments: segments, scheme: $0, host: nil) + queryText },
            universalURL: info.universalHost.map { exampleURL(segments: segments, scheme: nil, host: $0) + queryText })
    }

    /// Why `value` cannot be a value of `type`, or `nil` when it can.
    static func valueProblem(_ value: String, type: ParameterType, inPath: Bool) -> String? {
        if !type.accepts(value) { return "is not a valid \(type.spelling)" }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "contains control characters"
        }
        if inPath {
            let pieces = value.split(separator: "/", omittingEmptySubsequences: false)
            if type.kind == .catchAll
                ? pieces.contains(where: { $0 == "." || $0 == ".." }) : value == "." || value == ".."
            {
                return "cannot be a path segment"
            }
            if value.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains("..") {
                return "contains a \"..\" segment"
            }
        }
        return nil
    }
}

import ArgumentParsing

#if canImport(Glibc)
    import Glibc
#endif

/// Option values from the command line, falling back to `VI_CONTINUE_*` environment variables.
struct Settings {
    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) {
        self.arguments = arguments
    }

    /// The option's value: the flag if given, else `VI_CONTINUE_<NAME>`.
    func value(_ name: String) -> String? {
        if let value = arguments.value(name) { return value }
        let variable = "VI_CONTINUE_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
        return Self.environment(variable)
    }

    /// A declared option's value: the flag if given, else its environment variable, else its
    /// default.
    ///
    /// - Throws: `OptionValueError` naming the flag or variable and what it must be.
    func value<Value>(_ option: Option<Value>) throws(OptionValueError) -> Value {
        try option.value(in: arguments, environment: Self.environment)
    }

    /// An environment variable, nil when unset or empty.
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let string = String(cString: value)
        return string.isEmpty ? nil : string
    }
}

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
        arguments.value(name) ?? Self.environment(Self.variable(for: name))
    }

    /// A declared option's value: the flag if given, else its environment variable
    /// (`VI_CONTINUE_<NAME>` unless it declares another), else its default.
    ///
    /// - Throws: `OptionValueError` naming the flag or variable and what it must be.
    func value<Value>(_ option: Option<Value>) throws(OptionValueError) -> Value {
        let declared = option.environmentVariable == nil ? option.environment(Self.variable(for: option.name)) : option
        return try declared.value(in: arguments, environment: Self.environment)
    }

    /// The variable that sets option `name` when the command line does not: `VI_CONTINUE_` and
    /// the name in capitals, dashes as underscores.
    static func variable(for name: String) -> String {
        "VI_CONTINUE_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    /// An environment variable, nil when unset or empty.
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let string = String(cString: value)
        return string.isEmpty ? nil : string
    }
}

/// What the command line said, after parsing against a ``CommandSpec`` tree.
public struct ParsedArguments: Sendable, Equatable {
    /// The subcommand names from the root, e.g. `["routes", "check"]`.
    public var commandPath: [String]
    /// Option values by long name, in the order given.
    public var options: [String: [String]]
    /// Flags given, by long name.
    public var flags: Set<String>
    /// Positional arguments, in order.
    public var positionals: [String]

    public init(
        commandPath: [String] = [], options: [String: [String]] = [:], flags: Set<String> = [],
        positionals: [String] = []
    ) {
        self.commandPath = commandPath
        self.options = options
        self.flags = flags
        self.positionals = positionals
    }

    /// The last value given for an option, or nil.
    public func value(_ name: String) -> String? {
        options[name]?.last
    }

    /// Every value given for an option.
    public func values(_ name: String) -> [String] {
        options[name] ?? []
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool {
        flags.contains(name)
    }
}

/// The outcome of parsing: run a command, or show its help.
public enum ParseOutcome: Sendable, Equatable {
    /// Run the command.
    case run(ParsedArguments)
    /// `--help` (or `help`) was asked for the command at this path.
    case help(commandPath: [String])
}

/// A command line that does not fit the declared commands; the CLI prints it and exits 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the offending argument.
    public var message: String
    /// The command the error belongs to, for pointing at its help.
    public var commandPath: [String]

    public init(_ message: String, commandPath: [String]) {
        self.message = message
        self.commandPath = commandPath
    }

    public var description: String { message }
}

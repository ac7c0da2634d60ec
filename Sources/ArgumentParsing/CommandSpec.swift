/// The declared shape of one command: its options, flags, positional arguments and subcommands.
///
/// Commands form a tree; the root is the executable. Parsing walks subcommand names from the
/// root, then reads options and positionals for the command it landed on.
public struct CommandSpec: Sendable {
    /// The name typed on the command line.
    public var name: String
    /// One line for lists of subcommands.
    public var abstract: String
    /// Longer help, shown by `--help`, usually with examples.
    public var discussion: String
    /// Options that take a value (`--name value` or `--name=value`).
    public var options: [OptionSpec]
    /// Options that take no value.
    public var flags: [FlagSpec]
    /// Positional arguments, in order.
    public var positionals: [PositionalSpec]
    /// Subcommands; a command with subcommands and no positionals requires one.
    public var subcommands: [CommandSpec]

    public init(
        name: String, abstract: String, discussion: String = "", options: [OptionSpec] = [],
        flags: [FlagSpec] = [], positionals: [PositionalSpec] = [], subcommands: [CommandSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.flags = flags
        self.positionals = positionals
        self.subcommands = subcommands
    }

    /// The subcommand with this name, if any.
    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

/// An option that takes a value.
public struct OptionSpec: Sendable {
    /// The long name without dashes: `server` for `--server`.
    public var name: String
    /// An optional one-letter short name: `s` for `-s`.
    public var short: Character?
    /// The value's name in help, e.g. `ADDR`.
    public var valueName: String
    /// What the option does.
    public var help: String
    /// Whether the option may be given more than once (values accumulate).
    public var repeats: Bool

    public init(
        _ name: String, short: Character? = nil, valueName: String = "VALUE", help: String, repeats: Bool = false
    ) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
        self.repeats = repeats
    }
}

/// An option that takes no value.
public struct FlagSpec: Sendable {
    /// The long name without dashes.
    public var name: String
    /// An optional one-letter short name.
    public var short: Character?
    /// What the flag does.
    public var help: String

    public init(_ name: String, short: Character? = nil, help: String) {
        self.name = name
        self.short = short
        self.help = help
    }
}

/// A positional argument.
public struct PositionalSpec: Sendable {
    /// The argument's name in help, e.g. `SESSION`.
    public var name: String
    /// What the argument is.
    public var help: String
    /// Whether it may be left out.
    public var optional: Bool
    /// Whether it takes all remaining arguments (only the last positional may).
    public var variadic: Bool

    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.optional = optional
        self.variadic = variadic
    }
}

/// Parses command lines against a ``CommandSpec`` tree, with the conventions of
/// swift-argument-parser: `--name value`, `--name=value`, `-s value`, `--` ends options,
/// `--help`/`-h` anywhere, and a did-you-mean suggestion for mistyped names.
public struct ArgumentParser: Sendable {
    /// The executable's command.
    public let root: CommandSpec

    public init(root: CommandSpec) {
        self.root = root
    }

    /// Parses `arguments` (without the executable name).
    ///
    /// - Returns: the command to run, or the command whose help was asked for.
    /// - Throws: ``UsageError`` naming the argument that does not fit.
    public func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        var command = root
        var result = ParsedArguments()
        var index = 0

        // Subcommand names come first; `help` before them is the same as `--help` after.
        if arguments.first == "help" {
            var path: [String] = []
            var current = root
            for name in arguments.dropFirst() {
                guard let next = current.subcommand(named: name) else {
                    throw unknownSubcommand(name, of: current, path: path)
                }
                path.append(name)
                current = next
            }
            return .help(commandPath: path)
        }
        while index < arguments.count, !command.subcommands.isEmpty {
            let word = arguments[index]
            if word == "--help" || word == "-h" { return .help(commandPath: result.commandPath) }
            if word.hasPrefix("-") { break }
            guard let next = command.subcommand(named: word) else {
                if command.positionals.isEmpty { throw unknownSubcommand(word, of: command, path: result.commandPath) }
                break
            }
            result.commandPath.append(word)
            command = next
            index += 1
        }
        if !command.subcommands.isEmpty, command.positionals.isEmpty, index >= arguments.count {
            let names = command.subcommands.map(\.name).joined(separator: ", ")
            throw UsageError("missing subcommand (one of: \(names))", commandPath: result.commandPath)
        }

        var onlyPositionals = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                result.positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            if word == "--help" || word == "-h" { return .help(commandPath: result.commandPath) }

            let (name, inlineValue) = try splitOption(word, in: command, path: result.commandPath)
            if let option = command.options.first(where: { $0.name == name }) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError("missing value for --\(name) \(option.valueName)", commandPath: result.commandPath)
                }
                if !option.repeats, result.options[name] != nil {
                    throw UsageError("--\(name) given more than once", commandPath: result.commandPath)
                }
                result.options[name, default: []].append(value)
            } else if command.flags.contains(where: { $0.name == name }) {
                if inlineValue != nil {
                    throw UsageError("--\(name) takes no value", commandPath: result.commandPath)
                }
                result.flags.insert(name)
            } else {
                throw unknownOption(name, in: command, path: result.commandPath)
            }
        }
        try checkPositionals(result.positionals, of: command, path: result.commandPath)
        return .run(result)
    }

    /// The command at `path`, if the path names one.
    public func command(at path: [String]) -> CommandSpec? {
        var command = root
        for name in path {
            guard let next = command.subcommand(named: name) else { return nil }
            command = next
        }
        return command
    }

    private func splitOption(
        _ word: String, in command: CommandSpec, path: [String]
    ) throws(UsageError) -> (name: String, value: String?) {
        if word.hasPrefix("--") {
            let body = word.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                return (String(body[..<equals]), String(body[body.index(after: equals)...]))
            }
            return (String(body), nil)
        }
        // A short name: `-s` or `-sVALUE`.
        let body = word.dropFirst()
        guard let letter = body.first else { throw UsageError("unexpected '-'", commandPath: path) }
        let rest = body.dropFirst()
        if let option = command.options.first(where: { $0.short == letter }) {
            return (option.name, rest.isEmpty ? nil : String(rest))
        }
        if let flag = command.flags.first(where: { $0.short == letter }), rest.isEmpty {
            return (flag.name, nil)
        }
        throw UsageError("unknown option '\(word)'", commandPath: path)
    }

    private func checkPositionals(_ values: [String], of command: CommandSpec, path: [String]) throws(UsageError) {
        let required = command.positionals.filter { !$0.optional && !$0.variadic }.count
        if values.count < required {
            let missing = command.positionals.filter { !$0.optional }[values.count]
            throw UsageError("missing argument \(missing.name)", commandPath: path)
        }
        if command.positionals.last?.variadic != true, values.count > command.positionals.count {
            let extra = values[command.positionals.count]
            if command.positionals.isEmpty, !command.subcommands.isEmpty {
                throw unknownSubcommand(extra, of: command, path: path)
            }
            throw UsageError("unexpected argument '\(extra)'", commandPath: path)
        }
    }

    private func unknownSubcommand(_ name: String, of command: CommandSpec, path: [String]) -> UsageError {
        var message = "unknown command '\(name)'"
        if let guess = closest(to: name, among: command.subcommands.map(\.name)) {
            message += "; did you mean '\(guess)'?"
        }
        return UsageError(message, commandPath: path)
    }

    private func unknownOption(_ name: String, in command: CommandSpec, path: [String]) -> UsageError {
        var message = "unknown option '--\(name)'"
        let names = command.options.map(\.name) + command.flags.map(\.name)
        if let guess = closest(to: name, among: names) {
            message += "; did you mean '--\(guess)'?"
        }
        return UsageError(message, commandPath: path)
    }
}

/// The candidate nearest to `word` by edit distance, if it is near enough to be a typo.
func closest(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word, $0)) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(1, word.count / 3) ? best.0 : nil
}

/// Edit distance counting insertions, deletions, substitutions and swaps of neighbours (the
/// commonest typo, `qurey` for `query`) as one edit each: optimal string alignment distance.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in stride(from: 1, through: a.count, by: 1) {
        for j in stride(from: 1, through: b.count, by: 1) {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}

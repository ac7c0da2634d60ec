/// Renders `--help` text for a command, in the layout of swift-argument-parser.
public struct HelpFormatter: Sendable {
    /// The executable's name, first on every usage line.
    public let executableName: String

    public init(executableName: String) {
        self.executableName = executableName
    }

    /// The help text for `command`, reached through `path`.
    public func help(for command: CommandSpec, path: [String]) -> String {
        var lines: [String] = []
        lines.append("OVERVIEW: \(command.abstract)")
        if !command.discussion.isEmpty {
            lines.append("")
            lines.append(command.discussion)
        }
        lines.append("")
        lines.append("USAGE: \(usage(for: command, path: path))")

        if !command.positionals.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for positional in command.positionals {
                lines.append(row("<\(positional.name.lowercased())>", positional.help))
            }
        }
        let optionRows =
            command.options.map { option in
                row("\(shortPrefix(option.short))--\(option.name) <\(option.valueName.lowercased())>", option.help)
            } + command.flags.map { flag in row("\(shortPrefix(flag.short))--\(flag.name)", flag.help) }
        lines.append("")
        lines.append("OPTIONS:")
        lines.append(contentsOf: optionRows)
        lines.append(row("-h, --help", "Show help information."))

        if !command.subcommands.isEmpty {
            lines.append("")
            lines.append("SUBCOMMANDS:")
            for subcommand in command.subcommands {
                lines.append(row(subcommand.name, subcommand.abstract))
            }
            lines.append("")
            let prefix = ([executableName] + path).joined(separator: " ")
            lines.append("  See '\(prefix) help <subcommand>' for detailed help.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The one-line usage of `command`.
    public func usage(for command: CommandSpec, path: [String]) -> String {
        var words = [executableName] + path
        if !command.subcommands.isEmpty, command.positionals.isEmpty {
            words.append("<subcommand>")
        }
        if !command.options.isEmpty || !command.flags.isEmpty {
            words.append("[<options>]")
        }
        for positional in command.positionals {
            var word = "<\(positional.name.lowercased())>"
            if positional.variadic { word += " ..." }
            words.append(positional.optional || positional.variadic ? "[\(word)]" : word)
        }
        return words.joined(separator: " ")
    }

    private func shortPrefix(_ short: Character?) -> String {
        short.map { "-\($0), " } ?? ""
    }

    private func row(_ left: String, _ right: String) -> String {
        let padded = "  " + left
        if padded.count >= 26 {
            return padded + "\n" + String(repeating: " ", count: 26) + right
        }
        return padded + String(repeating: " ", count: 26 - padded.count) + right
    }
}

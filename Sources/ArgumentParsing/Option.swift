/// An option declared once, with everything about it: its name and value name, its help, its
/// default, the values it accepts and the environment variable that may set it.
///
/// The help line, the parsing, the error for a value that does not fit and the default all come
/// from the one declaration, so they cannot drift apart (what swift-argument-parser's `@Option`
/// does with a property wrapper). A command lists its declarations' ``spec``s and reads each
/// value with ``value(in:environment:)``.
public struct Option<Value: Sendable>: Sendable {
    /// The long name without dashes: `port` for `--port`.
    public let name: String
    /// The value's name in help, e.g. `SECONDS`.
    public let valueName: String
    /// What the option does, one sentence without its default.
    public let summary: String
    /// The value when neither the command line nor the environment gives one.
    public let defaultValue: Value
    /// How help states the default; `nil` states none.
    public let defaultDescription: String?
    /// The environment variable that sets the option when the command line does not.
    public private(set) var environmentVariable: String?
    /// What a value must be, completing "--NAME must be …".
    public let requirement: String
    private let convert: @Sendable (String) -> Value?

    /// Declares an option.
    ///
    /// - Parameters:
    ///   - name: The long name without dashes.
    ///   - valueName: The value's name in help.
    ///   - summary: What the option does, one sentence without its default.
    ///   - defaultValue: The value when none is given.
    ///   - defaultDescription: How help states the default (`nil`: help states none).
    ///   - environmentVariable: The variable that sets the option when the command line does not.
    ///   - requirement: What a value must be, completing "--NAME must be …".
    ///   - convert: The value of a text, or `nil` when the text does not fit the requirement.
    public init(
        _ name: String, valueName: String, summary: String, default defaultValue: Value, defaultDescription: String?,
        environmentVariable: String?, requirement: String, convert: @escaping @Sendable (String) -> Value?
    ) {
        self.name = name
        self.valueName = valueName
        self.summary = summary
        self.defaultValue = defaultValue
        self.defaultDescription = defaultDescription
        self.environmentVariable = environmentVariable
        self.requirement = requirement
        self.convert = convert
    }

    /// This option, set by environment variable `variable` when the command line does not.
    public func environment(_ variable: String) -> Option {
        var option = self
        option.environmentVariable = variable
        return option
    }

    /// The declaration for the parser and for help: the summary with its default.
    public var spec: OptionSpec {
        let stated = defaultDescription.map { " (default \($0))" } ?? ""
        return OptionSpec(name, valueName: valueName, help: summary + stated + ".")
    }

    /// The option's value: the command line's (the last, when given more than once), else the
    /// environment variable's when set and not empty, else the default.
    ///
    /// - Parameters:
    ///   - arguments: The parsed command line.
    ///   - environment: Looks up an environment variable.
    /// - Throws: ``OptionValueError`` naming where the value came from and what it must be.
    public func value(
        in arguments: ParsedArguments, environment: (String) -> String? = { _ in nil }
    ) throws(OptionValueError) -> Value {
        let given: (source: String, text: String)
        if let text = arguments.value(name) {
            given = ("--" + name, text)
        } else if let variable = environmentVariable, let text = environment(variable), !text.isEmpty {
            given = (variable, text)
        } else {
            return defaultValue
        }
        guard let value = convert(given.text) else {
            throw OptionValueError(source: given.source, given: given.text, requirement: requirement)
        }
        return value
    }
}

/// A value that does not fit its option; the CLI prints it and exits 2.
public struct OptionValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the value came from: `--port` or `VI_CONTINUE_PORT`.
    public var source: String
    /// The text given.
    public var given: String
    /// What a value must be.
    public var requirement: String

    public init(source: String, given: String, requirement: String) {
        self.source = source
        self.given = given
        self.requirement = requirement
    }

    public var description: String { "\(source) must be \(requirement) (got '\(given)')" }
}

extension Option where Value == Int {
    /// A whole number in `range`.
    public static func integer(
        _ name: String, valueName: String = "N", in range: ClosedRange<Int>, default defaultValue: Int,
        environmentVariable: String? = nil, summary: String
    ) -> Option<Int> {
        Option(
            name, valueName: valueName, summary: summary, default: defaultValue,
            defaultDescription: String(defaultValue), environmentVariable: environmentVariable,
            requirement: "a whole number from \(range.lowerBound) to \(range.upperBound)",
            convert: { Int($0).flatMap { range.contains($0) ? $0 : nil } })
    }
}

extension Option where Value == Double {
    /// A number in `range`, in `unit` (help and errors name it: "a number of seconds from 0 to 60").
    public static func number(
        _ name: String, valueName: String, unit: String, in range: ClosedRange<Double>,
        default defaultValue: Double, defaultDescription: String? = nil, environmentVariable: String? = nil,
        summary: String
    ) -> Option<Double> {
        Option(
            name, valueName: valueName, summary: summary, default: defaultValue,
            defaultDescription: defaultDescription ?? Self.format(defaultValue),
            environmentVariable: environmentVariable,
            requirement:
                "a number of \(unit) from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))",
            convert: { text in
                guard let number = Double(text), number.isFinite, range.contains(number) else { return nil }
                return number
            })
    }

    /// A number as help prints it: whole numbers without a fraction.
    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}

extension Option where Value == String {
    /// One of `choices`.
    public static func choice(
        _ name: String, valueName: String, among choices: [String], default defaultValue: String,
        environmentVariable: String? = nil, summary: String
    ) -> Option<String> {
        let listed =
            choices.count > 1
            ? choices.dropLast().joined(separator: ", ") + " or " + choices.last! : choices.joined()
        return Option(
            name, valueName: valueName, summary: summary, default: defaultValue, defaultDescription: defaultValue,
            environmentVariable: environmentVariable, requirement: listed,
            convert: { choices.contains($0) ? $0 : nil })
    }

    /// Any text that is not empty; the default is described in help as `defaultDescription`
    /// (it may be computed when the command runs, e.g. from another variable).
    public static func text(
        _ name: String, valueName: String, default defaultValue: String, defaultDescription: String? = nil,
        environmentVariable: String? = nil, summary: String
    ) -> Option<String> {
        Option(
            name, valueName: valueName, summary: summary, default: defaultValue,
            defaultDescription: defaultDescription ?? defaultValue, environmentVariable: environmentVariable,
            requirement: "not empty", convert: { $0.isEmpty ? nil : $0 })
    }
}

extension Option where Value == String? {
    /// Text with no default: `nil` unless given (help states `defaultDescription`, if any).
    public static func text(
        _ name: String, valueName: String, defaultDescription: String? = nil, environmentVariable: String? = nil,
        summary: String
    ) -> Option<String?> {
        Option(
            name, valueName: valueName, summary: summary, default: nil, defaultDescription: defaultDescription,
            environmentVariable: environmentVariable, requirement: "not empty",
            // `.none` is the misfit; a bare `nil` here would be a fitting value of nil.
            convert: { text -> String?? in text.isEmpty ? .none : .some(text) })
    }
}

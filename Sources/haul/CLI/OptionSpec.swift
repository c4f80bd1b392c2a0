/// One option in a command's table: how it is spelled, whether it takes a value, and the line
/// its help shows. The tables in `Commands.swift` are the single source of parsing and help.
struct OptionSpec: Sendable {
  /// The long name without dashes (`concurrency`); also the key parsed values are stored under.
  var long: String
  /// The short letter (`j` for `-j`), if any.
  var short: Character?
  /// The value's placeholder in help (`N`, `DIR`), or nil for a flag.
  var valueName: String?
  /// Whether the option may be given more than once, every value kept (`--header`).
  var repeatable = false
  /// One line of help.
  var help: String
  /// The default as help shows it, if any.
  var defaultValue: String?
  /// The only values the option accepts, when they are a fixed list (`curl`, `urlsession`);
  /// the shell completions offer them.
  var choices: [String]
  /// The placeholder of a flag's optional value, given only as `--NAME=VALUE` (`DIR` of
  /// `--hf-cache[=DIR]`): a separate word after the flag stays a positional argument.
  var inlineValueName: String?

  init(
    _ long: String, short: Character? = nil, value valueName: String? = nil,
    repeatable: Bool = false, default defaultValue: String? = nil, choices: [String] = [],
    inlineValue inlineValueName: String? = nil, help: String
  ) {
    self.long = long
    self.short = short
    self.valueName = valueName
    self.repeatable = repeatable
    self.help = help
    self.defaultValue = defaultValue
    self.choices = choices
    self.inlineValueName = inlineValueName
  }

  var takesValue: Bool { valueName != nil }

  /// The help line with the accepted values and the default: what `--help` and the manual
  /// page show beside the spelling.
  var fullHelp: String {
    var text = help
    if !choices.isEmpty { text += ": " + choices.joined(separator: " or ") }
    if let defaultValue { text += " (default: \(defaultValue))" }
    return text
  }

  /// How help shows the option's spelling: `-j, --concurrency N`.
  var synopsis: String {
    let shortPart = short.map { "-\($0), " } ?? "    "
    let valuePart = valueName.map { " \($0)" } ?? inlineValueName.map { " [=\($0)]" } ?? ""
    return shortPart + "--" + long + valuePart
  }
}

/// A command: its name, what it does, its positional argument and its option table.
struct CommandSpec: Sendable {
  var name: String
  /// One line for the command list.
  var summary: String
  /// The positional argument's name (`MANIFEST`).
  var argument: String
  /// Paragraphs of help shown between the usage line and the options.
  var description: [String]
  var options: [OptionSpec]
  /// Paragraphs shown after the options (exit statuses, notes).
  var epilogue: [String]
  /// Whether the command exists yet; listed as "not yet available" when not.
  var isAvailable = true

  /// The option spelled `--name`.
  func option(long name: String) -> OptionSpec? { options.first { $0.long == name } }

  /// The option spelled `-c`.
  func option(short letter: Character) -> OptionSpec? { options.first { $0.short == letter } }
}

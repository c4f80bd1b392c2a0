/// A command line split by a command's option table: positional arguments, and the values of
/// each option given, keyed by its long name (a flag stores an empty string).
struct ParsedArguments: Equatable {
  var positionals: [String] = []
  private(set) var values: [String: [String]] = [:]

  mutating func record(_ option: OptionSpec, _ value: String) {
    if option.repeatable {
      values[option.long, default: []].append(value)
    } else {
      values[option.long] = [value]
    }
  }

  /// Whether option `long` was given.
  func has(_ long: String) -> Bool { values[long] != nil }

  /// The value of option `long` (the last one, for options given twice).
  func value(_ long: String) -> String? { values[long]?.last }

  /// Every value of a repeatable option, in order.
  func all(_ long: String) -> [String] { values[long] ?? [] }

  /// Splits `arguments` (without the program and command names) by `command`'s table.
  ///
  /// Accepts `--name value`, `--name=value`, `-j 8`, `-j8`, clustered flags (`-qj8`), `--` to
  /// end the options, and `-` as a positional (standard input). A value that looks like an
  /// option is refused, so `--report --events` is an error rather than a file named
  /// `--events`; such a value can still be given as `--report=--events`.
  static func parse(_ arguments: [String], for command: CommandSpec) throws(UsageError)
    -> ParsedArguments
  {
    var parsed = ParsedArguments()
    var index = 0
    var optionsEnded = false

    func nextValue(for option: OptionSpec, spelled: String) throws(UsageError) -> String {
      guard index < arguments.count, !looksLikeOption(arguments[index]) else {
        throw UsageError(
          "option '\(spelled)' needs a value (\(option.valueName ?? "VALUE"))",
          command: command.name)
      }
      defer { index += 1 }
      return arguments[index]
    }

    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if optionsEnded || !looksLikeOption(argument) {
        parsed.positionals.append(argument)
      } else if argument == "--" {
        optionsEnded = true
      } else if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let name = String(body.prefix { $0 != "=" })
        let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
        guard let option = command.option(long: name) else {
          throw UsageError("unknown option '--\(name)'", command: command.name)
        }
        if option.takesValue {
          if let inline {
            parsed.record(option, inline)
          } else {
            parsed.record(option, try nextValue(for: option, spelled: "--\(name)"))
          }
        } else if inline != nil, option.inlineValueName == nil {
          throw UsageError("option '--\(name)' takes no value", command: command.name)
        } else {
          parsed.record(option, inline ?? "")
        }
      } else {
        var letters = argument.dropFirst()
        while let letter = letters.popFirst() {
          guard let option = command.option(short: letter) else {
            throw UsageError("unknown option '-\(letter)'", command: command.name)
          }
          guard option.takesValue else {
            parsed.record(option, "")
            continue
          }
          if letters.isEmpty {
            parsed.record(option, try nextValue(for: option, spelled: "-\(letter)"))
          } else {
            parsed.record(option, String(letters.drop { $0 == "=" }))
          }
          break
        }
      }
    }
    return parsed
  }

  /// Whether `argument` is an option rather than a value: it starts with `-` and is not `-`.
  private static func looksLikeOption(_ argument: String) -> Bool {
    argument.hasPrefix("-") && argument != "-"
  }
}

/// Help text, generated from the command tables so that it cannot drift from the parser.
enum HelpText {
  /// `haul --help`: what haul is and its commands.
  static func overview(_ commands: [CommandSpec]) -> String {
    var lines = [
      "haul \(Version.current): parallel bulk HTTP(S) downloads and uploads",
      "",
      "Usage: haul <command> MANIFEST [options]",
      "",
      "Commands:",
    ]
    let width = commands.map(\.name.count).max() ?? 0
    for command in commands {
      let note = command.isAvailable ? "" : " (not yet available)"
      lines.append("  " + pad(command.name, width) + "   " + command.summary + note)
    }
    lines += [
      "",
      "A MANIFEST is JSON Lines, one transfer per line ({\"url\": ..., \"path\": ...}), or a",
      "plain list of http(s) URLs; '-' reads it from standard input.",
      "",
      "Run 'haul <command> --help' for a command's options; 'haul --version' for the version.",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// `haul COMMAND --help`: usage, description, the option table, notes.
  static func command(_ command: CommandSpec) -> String {
    var lines = ["Usage: haul \(command.name) \(command.argument) [options]", ""]
    for paragraph in command.description { lines += [paragraph, ""] }
    lines.append("Options:")
    let width = command.options.map(\.synopsis.count).max() ?? 0
    let indent = String(repeating: " ", count: width + 4)
    for option in command.options {
      let wrapped = wrap(option.fullHelp, width: max(30, lineWidth - indent.count))
      lines.append("  " + pad(option.synopsis, width) + "  " + wrapped[0])
      lines += wrapped.dropFirst().map { indent + $0 }
    }
    for paragraph in command.epilogue { lines += ["", paragraph] }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The width help text is wrapped to.
  static let lineWidth = 80

  /// `text` broken at spaces into lines of at most `width` characters (longer words stay whole).
  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
      if !current.isEmpty, current.count + 1 + word.count > width {
        lines.append(current)
        current = ""
      }
      current += current.isEmpty ? String(word) : " " + word
    }
    lines.append(current)
    return lines
  }

  private static func pad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
  }
}

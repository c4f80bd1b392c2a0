/// The manual page `haul.1`, generated from the command tables (`haul --generate-man`), so
/// that it names exactly the options the parser accepts.
enum ManPage {
  /// The page as roff source for `man -l` or `man 1 haul` once installed.
  static func roff(_ commands: [CommandSpec]) -> String {
    var lines = [
      #".TH HAUL 1 "" "haul \#(Version.current)" "User Commands""#,
      ".SH NAME",
      #"haul \- parallel bulk HTTP(S) downloads and uploads"#,
      ".SH SYNOPSIS",
    ]
    for command in commands {
      lines += [
        ".B haul \(escape(command.name))", ".I \(escape(command.argument))", "[\\fIoptions\\fR]",
        ".br",
      ]
    }
    lines += [".B haul \\-\\-help", ".br", ".B haul \\-\\-version"]
    lines += [
      ".SH DESCRIPTION",
      paragraph(
        """
        haul reads a manifest of transfers and runs them with bounded concurrency over \
        HTTP(S): it streams every byte straight to or from disk, skips what is already \
        complete, resumes what was interrupted, verifies sizes and digests, and reports.
        """),
      ".PP",
      paragraph(
        """
        A MANIFEST is JSON Lines, one transfer per line ({"url": ..., "path": ...}), or a \
        plain list of http(s) URLs; '-' reads it from standard input. Every line is checked \
        before any transfer starts.
        """),
      ".SH COMMANDS",
    ]
    for command in commands {
      lines.append(".SS \"haul \(escape(command.name)) \(escape(command.argument)) [options]\"")
      lines.append(paragraph(command.summary + "."))
      for text in command.description { lines += [".PP", paragraph(text)] }
      for option in command.options {
        lines += [".TP", synopsis(option), paragraph(option.fullHelp)]
      }
      for text in command.epilogue { lines += [".PP", paragraph(text)] }
    }
    lines += [
      ".SH ENVIRONMENT",
      ".TP", ".B NO_COLOR", paragraph("when set, the progress display uses no colour"),
      ".TP", ".B TMPDIR",
      paragraph("where a manifest read from standard input is spooled (default /tmp)"),
      ".SH SEE ALSO",
      #".BR curl (1)"#,
      ".PP",
      paragraph(
        """
        The manual, docs/manual.md, and how haul behaves exactly, docs/behaviour.md, in \
        haul's source.
        """),
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// The option's spelling in bold with its value in italics: `-j, --concurrency N`.
  private static func synopsis(_ option: OptionSpec) -> String {
    var text = option.short.map { "\\fB\\-\(escape(String($0)))\\fR, " } ?? ""
    text += "\\fB\\-\\-\(escape(option.long))\\fR"
    if let value = option.valueName { text += " \\fI\(escape(value))\\fR" }
    if let value = option.inlineValueName { text += " [=\\fI\(escape(value))\\fR]" }
    return text
  }

  /// Text as filled roff lines: each source line escaped, none starting with a control dot.
  private static func paragraph(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { line in
        let escaped = escape(line.trimmingSpaces)
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
      }
      .joined(separator: "\n")
  }

  /// `text` with roff's escape character and hyphens escaped (`\e`, `\-`).
  static func escape(_ text: some StringProtocol) -> String {
    var out = ""
    for character in text {
      switch character {
      case "\\": out += "\\e"
      case "-": out += "\\-"
      default: out.append(character)
      }
    }
    return out
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while text.first == " " { text.removeFirst() }
    while text.last == " " { text.removeLast() }
    return text
  }
}

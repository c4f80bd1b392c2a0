import HaulCore

/// An AWS shared config or credentials file (`~/.aws/config`, `~/.aws/credentials`), parsed
/// as the AWS CLI parses it (botocore reads them with Python's `RawConfigParser`):
///
/// - `[section]` starts a section; the name is what stands between the first `[` and the
///   last `]`, trimmed.
/// - `name = value` or `name: value` sets an option; the name is trimmed and lower-cased,
///   the value trimmed. Nothing after the value is a comment: `key = a # b` is `a # b`.
/// - Lines whose first non-blank character is `#` or `;` are comments; blank lines are
///   skipped.
/// - A line indented deeper than the option before it continues that option's value
///   (joined with a newline); an option whose value so starts on the next line holds a
///   nested block of `name = value` lines (`s3 =` then `  addressing_style = path`).
///
/// Where botocore stops on a repeated section or option, haul takes the later one; lines
/// before any section are ignored.
package struct AWSConfigFile: Sendable, Hashable {
  /// Section name → option name (lower case) → value, in the file's order of sections.
  package private(set) var sections: [String: [String: String]] = [:]
  /// The section names in the order they first appear.
  package private(set) var sectionOrder: [String] = []

  /// Parses `text`; never fails (what cannot be read is skipped).
  package init(parsing text: String) {
    var section: String?
    var option: String?
    var optionIndent = 0
    for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      let indent = rawLine.prefix { $0 == " " || $0 == "\t" }.count
      let line = Self.trimmed(rawLine)
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
      if let section, let option, indent > optionIndent {
        sections[section]![option]! += "\n" + line
        continue
      }
      option = nil
      if line.hasPrefix("["), let close = line.lastIndex(of: "]") {
        let name = Self.trimmed(line[line.index(after: line.startIndex)..<close])
        if sections[name] == nil {
          sections[name] = [:]
          sectionOrder.append(name)
        }
        section = name
        continue
      }
      guard let section, let separator = line.firstIndex(where: { $0 == "=" || $0 == ":" })
      else { continue }
      let name = Self.trimmed(line[..<separator]).lowercased()
      guard !name.isEmpty else { continue }
      sections[section]![name] = Self.trimmed(line[line.index(after: separator)...])
      option = name
      optionIndent = indent
    }
  }

  /// The value of `option` in `section`, unless it holds a nested block.
  package func value(_ option: String, in section: String) -> String? {
    guard let value = sections[section]?[option], !value.hasPrefix("\n") else { return nil }
    return value
  }

  /// The nested block of `option` in `section` (`s3 =` followed by indented lines) as name →
  /// value; empty when there is none.
  package func nested(_ option: String, in section: String) -> [String: String] {
    guard let value = sections[section]?[option], value.hasPrefix("\n") else { return [:] }
    var block: [String: String] = [:]
    for line in value.split(separator: "\n") {
      guard let separator = line.firstIndex(of: "=") else { continue }
      block[Self.trimmed(line[..<separator]).lowercased()] = Self.trimmed(
        line[line.index(after: separator)...])
    }
    return block
  }

  /// The section that holds profile `name` in a config file: `[profile NAME]` (a quoted
  /// name allowed), or `[default]` for `default`; of several, the last one in the file.
  package func configProfileSection(_ name: String) -> String? {
    sectionOrder.last { section in
      if name == "default" && section == "default" { return true }
      let words = section.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard words.count >= 2, words[0] == "profile" else { return false }
      var rest = Self.trimmed(section.dropFirst("profile".count))
      if rest.count >= 2, let first = rest.first, first == "\"" || first == "'",
        rest.last == first
      {
        rest = String(rest.dropFirst().dropLast())
      } else if words.count != 2 {
        return false
      }
      return rest == name
    }
  }

  private static func trimmed(_ text: Substring) -> String {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let first = text.firstIndex(where: { !isBlank($0) }),
      let last = text.lastIndex(where: { !isBlank($0) })
    else { return "" }
    return String(text[first...last])
  }
}

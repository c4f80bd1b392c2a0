/// How manifest messages show text taken from a line: in double quotes, with control
/// characters, quotes and backslashes escaped (so a message stays one printable line), and
/// cut short after `limit` characters.
package enum ManifestText {
  package static func quoted(_ text: String, limit: Int = 64) -> String {
    var out = "\""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit {
        out += "…"
        break
      }
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{0}"..."\u{1F}", "\u{7F}":
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
      count += 1
    }
    return out + "\""
  }
}

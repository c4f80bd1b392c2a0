import HaulCore

/// The few XML reads haul's S3 answers need: the text of an element, entities decoded.
/// A scanner over bytes, not a parser: S3's answers are small, flat documents whose
/// elements haul names, and an XML parser would bring libxml2 for that.
enum S3XML {
  /// The text of the first `<name>…</name>` in `slice`, entities decoded.
  static func element(_ name: String, in slice: ArraySlice<UInt8>) -> String? {
    Self.element(bytesOf: name, in: slice).map { Self.decodeEntities($0) }
  }

  /// The bytes between the first `<name>` and the `</name>` after it, in `slice`.
  static func element(bytesOf name: String, in slice: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
    let open = Array("<\(name)>".utf8)
    guard let start = find(open, in: slice) else { return nil }
    let inner = slice[(start + open.count)...]
    guard let end = find(Array("</\(name)>".utf8), in: inner) else { return nil }
    return inner[..<end]
  }

  static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
    guard let first = needle.first, haystack.count >= needle.count else { return nil }
    var index = haystack.startIndex
    let last = haystack.endIndex - needle.count
    while index <= last {
      if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) {
        return index
      }
      index += 1
    }
    return nil
  }

  /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references decoded; anything
  /// else kept as written.
  static func decodeEntities(_ bytes: ArraySlice<UInt8>) -> String {
    guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
    var text = ""
    var rest = Substring(String(decoding: bytes, as: UTF8.self))
    while let amp = rest.firstIndex(of: "&") {
      text += rest[..<amp]
      let tail = rest[amp...]
      guard let semi = tail.firstIndex(of: ";"), tail.distance(from: amp, to: semi) <= 10 else {
        text += "&"
        rest = rest[rest.index(after: amp)...]
        continue
      }
      let name = tail[tail.index(after: amp)..<semi]
      let named: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'",
      ]
      if let value = named[name] {
        text += value
      } else if name.hasPrefix("#x"), let code = UInt32(name.dropFirst(2), radix: 16),
        let scalar = Unicode.Scalar(code)
      {
        text.unicodeScalars.append(scalar)
      } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()),
        let scalar = Unicode.Scalar(code)
      {
        text.unicodeScalars.append(scalar)
      } else {
        text += tail[amp...semi]
      }
      rest = rest[rest.index(after: semi)...]
    }
    return text + rest
  }
}

extension S3XML {
  /// `text` with `&`, `<`, `>`, `"` and `'` escaped, for an element's content.
  static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default: out.append(character)
      }
    }
    return out
  }
}

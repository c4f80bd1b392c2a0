/// The rules for an entry's local `path`, and its normal form.
///
/// A path is relative to the output directory and must stay inside it: not absolute, no `..`
/// segment, no NUL or other control character (U+0000–U+001F, U+007F), not empty, and it
/// must name a file (no trailing `/`). The normal form drops empty and `.` segments
/// (`a//b` and `./a/b` are both `a/b`); it is what entries carry and what duplicate
/// detection compares, byte for byte (Linux file names are bytes: `é` composed and decomposed
/// are different files).
enum ManifestPath {
  /// The normal form of `path`, or why it is not allowed (a reason naming the `"path"` field).
  /// A path already in normal form (the usual case) is returned as it is, not copied.
  static func normalize(_ path: String) -> Result<String, ManifestLineError> {
    var contiguous = path  // shares `path`'s storage: native strings are contiguous UTF-8
    return contiguous.withUTF8 { bytes in
      if bytes.isEmpty { return .failure(.init("\"path\" is empty")) }
      if bytes.first == UInt8(ascii: "/") { return .failure(.init("\"path\" must be relative")) }
      if bytes.last == UInt8(ascii: "/") {
        return .failure(.init("\"path\" must name a file, not end in \"/\""))
      }
      // One scan: find control characters, `..`, and whether any segment is empty or `.`.
      var needsRewrite = false
      var segmentStart = 0
      for index in 0...bytes.count {
        if index < bytes.count {
          let byte = bytes[index]
          if byte < 0x20 || byte == 0x7F {
            return .failure(.init("\"path\" contains a control character"))
          }
          if byte != UInt8(ascii: "/") { continue }
        }
        let length = index - segmentStart
        if length == 2, bytes[segmentStart] == UInt8(ascii: "."),
          bytes[segmentStart + 1] == UInt8(ascii: ".")
        {
          return .failure(.init("\"path\" must not contain \"..\""))
        }
        if length == 0 || (length == 1 && bytes[segmentStart] == UInt8(ascii: ".")) {
          needsRewrite = true
        }
        segmentStart = index + 1
      }
      guard needsRewrite else { return .success(path) }
      let kept = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        .filter { !($0.count == 1 && $0.first == UInt8(ascii: ".")) }
      if kept.isEmpty { return .failure(.init("\"path\" names no file")) }
      return .success(
        String(decoding: Array(kept.joined(separator: [UInt8(ascii: "/")])), as: UTF8.self))
    }
  }

  /// The default download path: the URL's last path segment, percent-decoded. It must be a
  /// plain file name (no `/` once decoded, not `.` or `..`, no control characters).
  static func defaultName(percentEncodedPath: String) -> Result<String, ManifestLineError> {
    var path = percentEncodedPath
    return path.withUTF8 { defaultName(percentEncodedPath: $0) }
  }

  /// `defaultName(percentEncodedPath:)` of a path given as UTF-8 bytes: the bytes are read
  /// in place, so a line's name costs the one string it becomes.
  static func defaultName(percentEncodedPath path: UnsafeBufferPointer<UInt8>) -> Result<
    String, ManifestLineError
  > {
    let noName = ManifestLineError("no file name in URL; give \"path\"")
    guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return .failure(noName) }
    let encoded = UnsafeBufferPointer(rebasing: path[(slash + 1)...])
    if encoded.isEmpty { return .failure(noName) }
    guard let name = removingPercentEncodingStrictly(encoded) else {
      return .failure(.init("file name in URL has invalid percent-encoding; give \"path\""))
    }
    if name.isDotSegment {
      return .failure(.init("file name in URL is \"\(name)\"; give \"path\""))
    }
    if name.utf8Contains(UInt8(ascii: "/")) {
      return .failure(.init("file name in URL contains \"/\" once decoded; give \"path\""))
    }
    if name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
      return .failure(.init("file name in URL contains a control character; give \"path\""))
    }
    return .success(name)
  }

  /// Decodes `%XX` escapes in `encoded` (valid UTF-8); `nil` when an escape is malformed or
  /// the result is not UTF-8. (Written out rather than using Foundation's
  /// `removingPercentEncoding`, to keep the per-line cost to one small allocation.)
  private static func removingPercentEncodingStrictly(_ encoded: UnsafeBufferPointer<UInt8>)
    -> String?
  {
    guard encoded.contains(UInt8(ascii: "%")) else {
      return String(decoding: encoded, as: UTF8.self)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(encoded.count)
    var index = 0
    while index < encoded.count {
      let byte = encoded[index]
      index += 1
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard index + 1 < encoded.count, let high = Hex.value(of: encoded[index]),
        let low = Hex.value(of: encoded[index + 1])
      else { return nil }
      index += 2
      bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
  }
}

/// One digest read from a checksum file: the output of `sha256sum`, `sha512sum`, `sha1sum`,
/// `md5sum` (with or without `--tag`), BSD `sha256`/`md5`, or `openssl dgst`.
///
/// Forms, after a line's trailing spaces are set aside:
/// - `HEX  NAME` (text mode) and `HEX *NAME` (binary mode); `HEX NAME` with a single space is
///   read too. The algorithm is known from the length of HEX: 64 SHA-256, 128 SHA-512,
///   40 SHA-1, 32 MD5 (a BLAKE2b-512 `b2sum` line would pass for SHA-512: do not give one).
/// - `ALGO (NAME) = HEX`, BSD style, ALGO one of `SHA256`, `SHA512`, `SHA1`, `MD5` (any case;
///   OpenSSL 3's `SHA2-256`/`SHA2-512` too), with or without the spaces (`SHA256(NAME)= HEX`).
///   NAME ends at the last `) = `, so a name may itself hold one.
/// - A leading `\` (GNU coreutils) means NAME is escaped: `\\` is `\`, `\n` a line feed,
///   `\r` a carriage return.
/// Blank lines and lines starting with `#` are skipped.
///
/// HEX may be in either case and is kept in lower case. NAME is taken as a manifest `path`
/// and put in the same normal form (`./a//b` is `a/b`); a NAME no manifest path can have (an
/// absolute one, one with `..`) is no error: no entry has it, so the line matches nothing.
struct ChecksumLine: Equatable {
  var algorithm: DigestAlgorithm
  /// The digest, lowercase hex.
  var hex: String
  /// The file's name in manifest normal form; `nil` when no manifest path can be it.
  var path: String?

  /// The digest on `bytes` (one line without its line break), or `nil` for a blank or
  /// comment line; throws why the line is not a checksum line.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(ChecksumLineError) -> Self? {
    var end = bytes.count
    while end > 0, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == 0x09 { end -= 1 }
    var start = 0
    while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == 0x09 { start += 1 }
    guard start < end, bytes[start] != UInt8(ascii: "#") else { return nil }
    var line = Array(bytes[start..<end])
    let escaped = line.first == UInt8(ascii: "\\")
    if escaped { line.removeFirst() }

    let hexRun = line.prefix(while: isHexDigit).count
    if hexRun == line.count {
      // A lone digest, as Maven's `.sha1` files hold: nothing says which file it is for.
      throw ChecksumLineError("no file name after the digest")
    }
    if hexRun > 0, hexRun < line.count, line[hexRun] == UInt8(ascii: " ") {
      return try gnu(line, hexLength: hexRun, escaped: escaped)
    }
    return try bsd(line, escaped: escaped)
  }

  /// `HEX  NAME`, `HEX *NAME`, `HEX NAME`.
  private static func gnu(_ line: [UInt8], hexLength: Int, escaped: Bool)
    throws(ChecksumLineError) -> Self
  {
    let algorithm = try algorithm(hexLength: hexLength)
    var nameStart = hexLength + 1
    if nameStart < line.count,
      line[nameStart] == UInt8(ascii: " ") || line[nameStart] == UInt8(ascii: "*")
    {
      nameStart += 1
    }
    guard nameStart < line.count else { throw ChecksumLineError("no file name after the digest") }
    let name = try self.name(line[nameStart...], escaped: escaped)
    return ChecksumLine(
      algorithm: algorithm, hex: lowercase(line[0..<hexLength]), path: normalized(name))
  }

  /// `ALGO (NAME) = HEX`.
  private static func bsd(_ line: [UInt8], escaped: Bool) throws(ChecksumLineError) -> Self {
    guard let open = line.firstIndex(of: UInt8(ascii: "(")), open > 0 else {
      throw ChecksumLineError("not a checksum line (HEX  NAME, or ALGO (NAME) = HEX)")
    }
    var algorithmEnd = open
    if line[algorithmEnd - 1] == UInt8(ascii: " ") { algorithmEnd -= 1 }
    let algorithmName = String(decoding: line[0..<algorithmEnd], as: UTF8.self).uppercased()
    guard let close = lastClose(in: line, after: open) else {
      throw ChecksumLineError("not a checksum line (HEX  NAME, or ALGO (NAME) = HEX)")
    }
    var hexStart = close.equals + 1
    while hexStart < line.count, line[hexStart] == UInt8(ascii: " ") { hexStart += 1 }
    let hex = line[hexStart...]
    guard !hex.isEmpty, hex.allSatisfy(isHexDigit) else {
      throw ChecksumLineError("the digest after \"=\" is not hex")
    }
    guard let algorithm = bsdAlgorithms[algorithmName] else {
      throw ChecksumLineError(
        "\(ManifestText.quoted(algorithmName)) is not a digest haul checks "
          + "(sha256, sha512, sha1, md5)")
    }
    guard hex.count == algorithm.hexLength else {
      throw ChecksumLineError(
        "a \(algorithm.displayName) digest has \(algorithm.hexLength) hex digits, not \(hex.count)")
    }
    let name = try self.name(line[(open + 1)..<close.paren], escaped: escaped)
    return ChecksumLine(algorithm: algorithm, hex: lowercase(hex), path: normalized(name))
  }

  /// BSD-style algorithm names (upper case), as BSD tools, `--tag` and `openssl dgst` write
  /// them.
  private static let bsdAlgorithms: [String: DigestAlgorithm] = [
    "SHA256": .sha256, "SHA2-256": .sha256, "SHA512": .sha512, "SHA2-512": .sha512,
    "SHA1": .sha1, "MD5": .md5,
  ]

  /// The positions of the `)` and the `=` of the last `) = ` (or `)= `, `)=`) after `open`.
  private static func lastClose(in line: [UInt8], after open: Int) -> (paren: Int, equals: Int)? {
    var index = line.count - 1
    while index > open {
      if line[index] == UInt8(ascii: ")") {
        var equals = index + 1
        if equals < line.count, line[equals] == UInt8(ascii: " ") { equals += 1 }
        if equals < line.count, line[equals] == UInt8(ascii: "=") { return (index, equals) }
      }
      index -= 1
    }
    return nil
  }

  private static func algorithm(hexLength: Int) throws(ChecksumLineError) -> DigestAlgorithm {
    guard let algorithm = DigestAlgorithm(hexLength: hexLength) else {
      throw ChecksumLineError(
        "a digest of \(hexLength) hex digits is none haul checks"
          + " (64 sha256, 128 sha512, 40 sha1, 32 md5)")
    }
    return algorithm
  }

  /// NAME as text, unescaped when the line started with `\`.
  private static func name(_ bytes: ArraySlice<UInt8>, escaped: Bool) throws(ChecksumLineError)
    -> String
  {
    guard !bytes.isEmpty else { throw ChecksumLineError("no file name") }
    guard escaped else { return String(decoding: bytes, as: UTF8.self) }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var iterator = bytes.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "\\") else {
        out.append(byte)
        continue
      }
      switch iterator.next() {
      case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      default: throw ChecksumLineError("bad escape in the file name (\\\\, \\n or \\r)")
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func normalized(_ name: String) -> String? {
    try? ManifestPath.normalize(name).get()
  }

  private static func lowercase(_ hex: ArraySlice<UInt8>) -> String {
    String(
      decoding: hex.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") ? $0 | 0x20 : $0 },
      as: UTF8.self)
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    Hex.isHex(CollectionOfOne(byte))
  }
}

/// Why a checksum file's line is not a checksum line (the file and line are added by
/// `ChecksumTable`).
struct ChecksumLineError: Error, Equatable {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}

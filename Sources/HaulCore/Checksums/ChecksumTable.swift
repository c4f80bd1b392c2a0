import Foundation

/// The digests of `--checksums` files, by manifest path: what `Manifest` applies to the
/// downloads whose `path` a checksum line names (see `ChecksumLine` for the forms read).
///
/// Memory is in the size of the checksum files, not the manifest's: one record per path the
/// files name, read once before the manifest is; the manifest's two passes look paths up.
/// Files are read line by line (at most 1 MiB a line).
///
/// A PGP clear-signed file (Fedora's `CHECKSUM`, say) is read through its armor: the
/// `-----BEGIN PGP SIGNED MESSAGE-----` header block and the signature block are skipped and
/// dash-escaped lines unescaped. The signature is not checked.
public struct ChecksumTable: Sendable {
  /// One digest read: its bytes' offset in `arena`, and where it was read (an index into
  /// `files` and a line number).
  private struct Stored: Sendable {
    var offset: UInt32
    var line: UInt32
    var file: UInt16
  }

  /// One path's digests: per algorithm, in `DigestAlgorithm` order, an index into `stored`,
  /// or -1. Small and inline, since the dictionary of records is most of the table's memory
  /// (a path's digests live as bytes in `arena`, a fraction of what strings would cost).
  private struct Record: Sendable {
    private var slots: (Int32, Int32, Int32, Int32) = (-1, -1, -1, -1)

    subscript(_ algorithm: DigestAlgorithm) -> Int? {
      get {
        let slot: Int32
        switch algorithm {
        case .sha256: slot = slots.0
        case .sha512: slot = slots.1
        case .sha1: slot = slots.2
        case .md5: slot = slots.3
        }
        return slot < 0 ? nil : Int(slot)
      }
      set {
        let slot = Int32(newValue ?? -1)
        switch algorithm {
        case .sha256: slots.0 = slot
        case .sha512: slots.1 = slot
        case .sha1: slots.2 = slot
        case .md5: slots.3 = slot
        }
      }
    }
  }

  /// The files read, as given.
  public private(set) var files: [String] = []
  private var records: [String: Record] = [:]
  private var stored: [Stored] = []
  /// Every digest's bytes, one after another.
  private var arena: [UInt8] = []

  /// An empty table: no file read.
  public init() {}

  /// The table of the files at `paths`, read in order.
  public init(reading paths: [String]) throws(ChecksumFileError) {
    for path in paths { try read(path) }
  }

  /// Whether no digest has been read.
  public var isEmpty: Bool { records.isEmpty }

  /// How many paths have digests.
  public var count: Int { records.count }

  /// The digests read for `path` (in manifest normal form), lowercase hex; empty when none.
  public func digests(for path: String) -> DigestValues {
    var values = DigestValues()
    guard let record = records[path] else { return values }
    for algorithm in DigestAlgorithm.allCases {
      guard let index = record[algorithm] else { continue }
      values[algorithm] = hex(stored[index], algorithm)
    }
    return values
  }

  /// `FILE:LINE` of the line that gave `path`'s digest of `algorithm`, if one did.
  public func place(of algorithm: DigestAlgorithm, for path: String) -> String? {
    guard let index = records[path]?[algorithm] else { return nil }
    return "\(files[Int(stored[index].file)]):\(stored[index].line)"
  }

  private func hex(_ digest: Stored, _ algorithm: DigestAlgorithm) -> String {
    arena.withUnsafeBytes { bytes in
      let start = Int(digest.offset)
      return Hex.encode(
        UnsafeRawBufferPointer(rebasing: bytes[start..<(start + algorithm.byteCount)]))
    }
  }

  /// Reads the checksum file at `path` into the table. A line that is not a checksum line,
  /// or a digest that differs from one already read for the same file and algorithm, throws.
  public mutating func read(_ path: String) throws(ChecksumFileError) {
    guard let reader = ManifestLineReader(path: path) else {
      throw ChecksumFileError(
        .unreadable, file: path, line: 0, reason: "cannot open: \(String(cString: strerror(errno)))"
      )
    }
    let file = files.count
    guard file <= UInt16.max else {
      throw ChecksumFileError(.unreadable, file: path, line: 0, reason: "more than 65,536 files")
    }
    files.append(path)
    var armor = ClearSignedArmor()
    while let event = reader.next() {
      switch event {
      case .line(let number, let bytes):
        guard let content = armor.content(of: bytes) else { continue }
        let parsed: ChecksumLine?
        do {
          parsed = try ChecksumLine.parse(content)
        } catch {
          throw ChecksumFileError(.badLine, file: path, line: number, reason: error.reason)
        }
        guard let parsed, let name = parsed.path else { continue }
        guard number <= UInt32.max, arena.count <= UInt32.max - 64, stored.count < Int32.max else {
          throw ChecksumFileError(.badLine, file: path, line: number, reason: "too many lines")
        }
        try insert(parsed, path: name, file: UInt16(file), number: UInt32(number))
      case .tooLong(let number):
        throw ChecksumFileError(
          .badLine, file: path, line: number, reason: "line is longer than 1 MiB")
      case .readFailed(let code):
        throw ChecksumFileError(
          .unreadable, file: path, line: 0,
          reason: "cannot read: \(String(cString: strerror(code)))")
      }
    }
  }

  private mutating func insert(_ line: ChecksumLine, path: String, file: UInt16, number: UInt32)
    throws(ChecksumFileError)
  {
    var record = records[path] ?? Record()
    if let index = record[line.algorithm] {
      guard hex(stored[index], line.algorithm) == line.hex else {
        let earlier = self.place(of: line.algorithm, for: path) ?? "an earlier line"
        throw ChecksumFileError(
          .contradiction, file: files[Int(file)], line: Int(number),
          reason:
            "\(line.algorithm) of \(ManifestText.quoted(path)) differs from the one at \(earlier)")
      }
      return
    }
    record[line.algorithm] = stored.count
    stored.append(Stored(offset: UInt32(arena.count), line: number, file: file))
    Hex.appendDecoded(line.hex, to: &arena)
    records[path] = record
  }
}

/// Follows a PGP clear-signed message (RFC 4880 §7) line by line, giving the signed text's
/// lines and hiding the armor: the header block after `BEGIN PGP SIGNED MESSAGE` (up to its
/// blank line) and everything from `BEGIN PGP SIGNATURE` to `END PGP SIGNATURE`. Outside a
/// clear-signed message every line is content.
private struct ClearSignedArmor {
  private enum State {
    case plain, headers, signed, signature
  }
  private var state = State.plain

  private static let begin = Array("-----BEGIN PGP SIGNED MESSAGE-----".utf8)
  private static let signature = Array("-----BEGIN PGP SIGNATURE-----".utf8)
  private static let end = Array("-----END PGP SIGNATURE-----".utf8)

  /// The content of line `bytes`, or `nil` for a line of the armor.
  mutating func content(of bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
    switch state {
    case .plain, .signed:
      if state == .plain, bytes.elementsEqual(Self.begin) {
        state = .headers
        return nil
      }
      if state == .signed {
        if bytes.elementsEqual(Self.signature) {
          state = .signature
          return nil
        }
        // Dash-escaped text: "- " before a line that starts with "-".
        if bytes.starts(with: "- ".utf8) { return UnsafeBufferPointer(rebasing: bytes[2...]) }
      }
      return bytes
    case .headers:
      if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == 0x09 }) { state = .signed }
      return nil
    case .signature:
      if bytes.elementsEqual(Self.end) { state = .plain }
      return nil
    }
  }
}

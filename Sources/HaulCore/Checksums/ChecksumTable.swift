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
  /// Where a digest was read: an index into `files` and a line number.
  private struct Place: Sendable {
    var algorithm: DigestAlgorithm
    var file: Int
    var line: Int
  }

  private struct Record: Sendable {
    var digests = DigestValues()
    var places: [Place] = []
  }

  /// The files read, as given.
  public private(set) var files: [String] = []
  private var records: [String: Record] = [:]

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

  /// The digests read for `path` (in manifest normal form); empty when none.
  public func digests(for path: String) -> DigestValues {
    records[path]?.digests ?? DigestValues()
  }

  /// `FILE:LINE` of the line that gave `path`'s digest of `algorithm`, if one did.
  public func place(of algorithm: DigestAlgorithm, for path: String) -> String? {
    guard let place = records[path]?.places.first(where: { $0.algorithm == algorithm }) else {
      return nil
    }
    return "\(files[place.file]):\(place.line)"
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
        try insert(
          parsed, path: name, place: Place(algorithm: parsed.algorithm, file: file, line: number))
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

  private mutating func insert(_ line: ChecksumLine, path: String, place: Place)
    throws(ChecksumFileError)
  {
    var record = records[path] ?? Record()
    if let known = record.digests[line.algorithm] {
      guard known == line.hex else {
        let earlier = self.place(of: line.algorithm, for: path) ?? "an earlier line"
        throw ChecksumFileError(
          .contradiction, file: files[place.file], line: place.line,
          reason:
            "\(line.algorithm) of \(ManifestText.quoted(path)) differs from the one at \(earlier)")
      }
      return
    }
    record.digests[line.algorithm] = line.hex
    record.places.append(place)
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

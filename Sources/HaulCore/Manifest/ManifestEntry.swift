import Foundation

/// One validated transfer from the manifest.
public struct ManifestEntry: Sendable, Hashable {
  /// Download into `path`, or upload `path`'s bytes.
  public enum Operation: String, Sendable, Hashable {
    case download
    case upload
  }

  /// The fields that hold references (strings, arrays, URLs, digests), and the listed mtime
  /// and ETag only listed files carry, kept in one box so that a copy of the entry costs one
  /// retain (`CopyOnWriteBox`).
  private struct Parts: Sendable, Hashable {
    var text: String
    var url: URL
    var mirrors: [URL]
    var path: String
    var method: String
    var manifestDigests: DigestValues
    var checksumDigests: DigestValues
    var headers: [HTTPField]
    var listedModified: Int?
    var listedETag: String?
    var listedDigests: [ExpectedDigest] = []
    var digestSeed: DigestSeed?
  }

  private var parts: CopyOnWriteBox<Parts>

  /// The physical, 1-based line number in the manifest.
  public var line: Int
  /// The line exactly as written (without its line break), for `--failed`.
  public var text: String {
    get { parts.value.text }
    _modify { yield &parts.value.text }
  }
  public var operation: Operation
  /// The first source; `http` or `https`.
  public var url: URL {
    get { parts.value.url }
    _modify { yield &parts.value.url }
  }
  /// Further sources for the same bytes, tried in order when one fails.
  public var mirrors: [URL] {
    get { parts.value.mirrors }
    _modify { yield &parts.value.mirrors }
  }
  /// Local file, relative to the output directory; validated: no `..`, not absolute.
  public var path: String {
    get { parts.value.path }
    _modify { yield &parts.value.path }
  }
  /// `PUT` or `POST` for uploads; `GET` for downloads.
  public var method: String {
    get { parts.value.method }
    _modify { yield &parts.value.method }
  }
  /// Expected byte count, if given.
  public var size: Int64?
  /// A folder to mirror (`"recursive": true`, `--recursive`): `url` ends in `/`, `path` is
  /// the local folder (ending in `/`), and the entry runs as the files its listing names.
  public var recursive: Bool
  /// The resumable upload protocol the line names (`resumable`); an upload's only. `nil`
  /// sends the file with one request (or through the run's `--resumable`).
  public var resumable: ResumableProtocol?
  /// The digests the line itself gives (`sha256`, `sha512`, `sha1`, `md5`), lowercase hex.
  public var manifestDigests: DigestValues {
    get { parts.value.manifestDigests }
    _modify { yield &parts.value.manifestDigests }
  }
  /// Digests from `--checksums` files for the algorithms the line does not give (see
  /// `ChecksumTable`); a download's only.
  public var checksumDigests: DigestValues {
    get { parts.value.checksumDigests }
    _modify { yield &parts.value.checksumDigests }
  }
  /// Extra request headers for this entry (secrets: never printed).
  public var headers: [HTTPField] {
    get { parts.value.headers }
    _modify { yield &parts.value.headers }
  }

  /// The modification time (whole seconds since 1970) the folder listing that named this
  /// file gives: a file in place of the listed size whose mtime differs is fetched again
  /// (`ListedTime`), and a fetched file whose answer has no `Last-Modified` gets it.
  package var listedModified: Int? {
    get { parts.value.listedModified }
    _modify { yield &parts.value.listedModified }
  }

  /// The entity tag the folder listing that named this file gives (a WebDAV `getetag`): a
  /// partial file begun under another listed ETag holds a prefix of another version and
  /// is not resumed (`ResumeState.belongs(to:)`).
  package var listedETag: String? {
    get { parts.value.listedETag }
    _modify { yield &parts.value.listedETag }
  }

  /// The digests the folder listing that named this file gives (a Hugging Face Hub's
  /// `lfs.oid`, its git blob id), each with its source: checked as the line's are, for the
  /// algorithms neither the line nor a checksum file gives.
  package var listedDigests: [ExpectedDigest] {
    get { parts.value.listedDigests }
    _modify { yield &parts.value.listedDigests }
  }

  /// The bytes a listed digest's algorithm is fed before the file's (`DigestSeed.gitBlob`).
  /// Applied only while that algorithm's expected digest is the listing's, since the line's
  /// and a checksum file's are of the bytes alone.
  package var digestSeed: DigestSeed? {
    get {
      guard let seed = parts.value.digestSeed,
        manifestDigests[seed.algorithm] == nil, checksumDigests[seed.algorithm] == nil
      else { return nil }
      return seed
    }
    set { parts.value.digestSeed = newValue }
  }

  /// - Parameters:
  ///   - sha256: the line's SHA-256; when given, it takes the place of `manifestDigests`'s.
  ///   - manifestDigests: the line's digests, lowercase hex.
  ///   - checksumDigests: digests from checksum files for the algorithms the line lacks.
  public init(
    line: Int, text: String, operation: Operation = .download, url: URL, mirrors: [URL] = [],
    path: String, method: String? = nil, size: Int64? = nil, sha256: String? = nil,
    headers: [HTTPField] = [], manifestDigests: DigestValues = DigestValues(),
    checksumDigests: DigestValues = DigestValues(), recursive: Bool = false,
    resumable: ResumableProtocol? = nil
  ) {
    self.resumable = resumable
    var manifestDigests = manifestDigests
    if let sha256 { manifestDigests[.sha256] = sha256 }
    parts = CopyOnWriteBox(
      Parts(
        text: text, url: url, mirrors: mirrors, path: path,
        method: method ?? (operation == .upload ? "PUT" : "GET"),
        manifestDigests: manifestDigests, checksumDigests: checksumDigests, headers: headers,
        listedModified: nil, listedETag: nil))
    self.line = line
    self.operation = operation
    self.size = size
    self.recursive = recursive
  }

  /// The entry's sources in the order they are tried: `url`, then `mirrors`.
  public var sources: [URL] { [url] + mirrors }

  /// Every digest the file must have, from the line and from checksum files, by algorithm
  /// (lowercase hex): what the transfer computes and checks.
  public var expectedDigests: DigestValues {
    let own = manifestDigests.filling(from: checksumDigests)
    let listed = parts.value.listedDigests
    guard !listed.isEmpty else { return own }
    var values = DigestValues()
    for digest in listed { values[digest.algorithm] = digest.hex }
    return own.filling(from: values)
  }

  /// The expected SHA-256 (64 lowercase hex digits), from the line or a checksum file, if
  /// any. Setting it sets the line's own.
  public var sha256: String? {
    get { manifestDigests[.sha256] ?? checksumDigests[.sha256] }
    set { manifestDigests[.sha256] = newValue }
  }

  /// `expectedDigests` with where each came from (`manifest:sha256`, `checksums:md5`), in
  /// canonical order: what `ExpectedDigest.verify` checks and the report's `verified` names.
  package var expectedDigestList: [ExpectedDigest] {
    let listed = parts.value.listedDigests
    return DigestAlgorithm.allCases.compactMap { algorithm in
      if let hex = manifestDigests[algorithm] {
        return ExpectedDigest(algorithm: algorithm, hex: hex, source: algorithm.manifestSource)
      }
      if let hex = checksumDigests[algorithm] {
        return ExpectedDigest(algorithm: algorithm, hex: hex, source: algorithm.checksumsSource)
      }
      return listed.first { $0.algorithm == algorithm }
    }
  }
}

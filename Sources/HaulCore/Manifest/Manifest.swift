import Foundation
import Synchronization

/// A manifest file: JSON Lines, one transfer per line (its fields: docs/manual.md,
/// "Manifest"), read as a stream.
///
/// Reading rules, beyond the fields' own (details in `ManifestLineParser`,
/// `ManifestLineReader`, `ManifestPath`, `ManifestDestinations`):
/// - a line whose first character other than spaces and tabs is `#` is a comment; a line of
///   only spaces and tabs is blank; both are skipped but must still be valid UTF-8;
/// - lines end at `\n`, a `\r` before it is dropped; a leading UTF-8 byte order mark is
///   skipped; the longest line is 1 MiB, not counting its line break;
/// - `size` is any JSON spelling of a whole number from 0 to 2^63-1 (`1024`, `1024.0`,
///   `1.024e3`); `sha256` (64 hex digits), `sha512` (128), `sha1` (40) and `md5` (32) accept
///   either case and are kept in lower case; `null` is a wrong type for every field;
/// - entries carry their `path` in normal form (`./a//b` becomes `a/b`);
/// - an upload's file, `path` under `outputDirectory`, is looked up with `stat(2)`, so a
///   symbolic link to a regular file is accepted: uploads only read, and a link farm
///   (a dataset cache, say) is a normal thing to upload from;
/// - a bare URL line may have spaces and tabs around it; a URL (bare, `url` or a mirror)
///   with a control character is refused, while spaces and non-ASCII characters inside it
///   are percent-encoded by Foundation's `URL(string:)`;
/// - duplicates: a download's destination is its normalized `path`; a `PUT` upload's is its
///   URL; a `POST` upload's is its URL with its `path` (one endpoint takes many files). A
///   download and an upload never clash;
/// - header rules are `HTTPField.userHeaderProblem`, shared with `--header`;
/// - `checksums` (from `--checksums` files) gives each download the digests its `path` has
///   there, for the algorithms its line does not give; a line whose own digest differs from
///   the table's is bad (`"sha256" differs from SHA256SUMS:4`, naming both places). Uploads
///   are not matched: the table describes files to fetch.
public struct Manifest: Sendable {
  /// The file to read (standard input is spooled to a temporary file by the caller first).
  public var path: String
  /// The name used in error messages: the path as the user gave it, or `-` for stdin.
  public var displayName: String
  /// The output directory entries' paths are relative to (`-o`).
  public var outputDirectory: String
  /// Digests from checksum files, applied to downloads by `path`.
  public var checksums: ChecksumTable
  /// URL schemes beyond http(s) (an object store's); entries carry the URLs they map to.
  /// None by default: any other scheme is refused.
  package var schemes = ManifestURLSchemes()
  /// `--recursive`: a download line whose URL ends in `/` is a folder to mirror, unless it
  /// says `"recursive": false`.
  package var recursive = false
  /// Whether a URL whose host is an IPv6 literal (`http://[::1]:8080/`, also a mirror) is a
  /// bad line: set for a transport that cannot reach one (URLSession on Linux fails it
  /// with error -1000, a corelibs limit), so that the run stops before any transfer instead
  /// of spending every retry on it.
  public var refusesIPv6Literals: Bool
  /// Whether a `"resumable": "ietf"` line is bad: set for a transport that cannot see the
  /// draft's `104` interim responses (URLSession on Linux takes one for the final answer).
  package var refusesResumableIETF = false

  /// - Parameters:
  ///   - path: the file to read.
  ///   - displayName: the name error messages give it.
  ///   - outputDirectory: what entries' paths are relative to; uploads' files are looked up
  ///     there.
  ///   - checksums: digests from `--checksums` files, given to downloads by path.
  ///   - refusesIPv6Literals: refuse IPv6 literal hosts, for the URLSession transport.
  public init(
    path: String, displayName: String, outputDirectory: String,
    checksums: ChecksumTable = ChecksumTable(), refusesIPv6Literals: Bool = false
  ) {
    self.init(
      path: path, displayName: displayName, outputDirectory: outputDirectory,
      checksums: checksums, schemes: ManifestURLSchemes(),
      refusesIPv6Literals: refusesIPv6Literals)
  }

  /// A manifest that also accepts the URLs of `schemes`.
  package init(
    path: String, displayName: String, outputDirectory: String, checksums: ChecksumTable,
    schemes: ManifestURLSchemes, refusesIPv6Literals: Bool
  ) {
    self.path = path
    self.displayName = displayName
    self.outputDirectory = outputDirectory
    self.checksums = checksums
    self.schemes = schemes
    self.refusesIPv6Literals = refusesIPv6Literals
  }

  /// Checks every line, in one streaming pass, before anything is transferred: the first bad
  /// line throws. Memory: one line (at most 1 MiB) plus one 64 KiB read, and 16 bytes of
  /// hash table per entry for duplicate detection (see `ManifestDestinations`).
  ///
  /// Also checks what needs more than one line: no two entries share a destination (the
  /// later line is reported, naming the earlier one), and each upload's file exists under
  /// `outputDirectory` and is a regular file. `knownBytes` saturates at `Int64.max`.
  public func validate() throws(ManifestError) -> ManifestStatistics {
    guard let reader = ManifestLineReader(path: path) else {
      throw error(line: 0, "cannot open: \(String(cString: strerror(errno)))")
    }
    let destinations = ManifestDestinations()
    var statistics = ManifestStatistics(entries: 0, knownBytes: 0, entriesWithoutSize: 0)
    while let event = reader.next() {
      switch event {
      case .line(let number, let bytes):
        let checked: ManifestLineCheck?
        do {
          checked = try ManifestLineParser.check(
            bytes, line: number, schemes: schemes, recursive: recursive)
        } catch {
          throw self.error(line: number, error.reason)
        }
        guard let checked else { continue }
        if refusesIPv6Literals, let problem = ipv6LiteralProblem(bytes, line: number) {
          throw error(line: number, problem)
        }
        if refusesResumableIETF, checked.resumable == .ietf {
          throw error(
            line: number,
            "\"resumable\": \"ietf\" needs the curl transport: URLSession cannot read the"
              + " draft's 104 interim responses")
        }
        if checked.operation == .upload,
          let problem =
            checked.isFolder
            ? Self.uploadFolderProblem(checked.path, in: outputDirectory)
            : Self.uploadFileProblem(checked.path, in: outputDirectory)
        {
          throw error(line: number, problem)
        }
        if checked.operation == .download,
          let problem = checksumProblem(path: checked.path, digests: checked.digests)
        {
          throw error(line: number, problem)
        }
        if let earlier = destinations.insert(checked) {
          throw error(line: number, "same destination as line \(earlier)")
        }
        statistics.entries += 1
        if let size = checked.size {
          let (sum, overflow) = statistics.knownBytes.addingReportingOverflow(size)
          statistics.knownBytes = overflow ? .max : sum
        } else {
          statistics.entriesWithoutSize += 1
        }
      case .tooLong(let number):
        throw error(line: number, Self.tooLongReason)
      case .readFailed(let code):
        throw error(line: 0, "cannot read: \(String(cString: strerror(code)))")
      }
    }
    return statistics
  }

  /// The manifest's entries, parsed again line by line as they are pulled; for a manifest
  /// that `validate()` accepted.
  ///
  /// Each iteration opens the file anew, so the sequence can be walked more than once.
  public func entries() -> ManifestEntries {
    ManifestEntries(manifest: self)
  }

  static let tooLongReason = "line is longer than 1 MiB"

  /// Why a download at `path` whose line gives `digests` contradicts `checksums`, if it does.
  func checksumProblem(path: String, digests: DigestValues) -> String? {
    guard !checksums.isEmpty, !digests.isEmpty else { return nil }
    let listed = checksums.digests(for: path)
    for (algorithm, hex) in digests {
      guard let other = listed[algorithm], other != hex else { continue }
      let place = checksums.place(of: algorithm, for: path) ?? "a checksum file"
      return "\"\(algorithm)\" differs from the one at \(place)"
    }
    return nil
  }

  /// Why the line on `bytes` cannot run when `refusesIPv6Literals`: the first of its sources
  /// whose host is an IPv6 literal. The line is parsed again in full, so that every source
  /// is built (validation leaves plain ones unbuilt, and no plain URL has such a host); this
  /// costs a second parse per line only with such a transport.
  func ipv6LiteralProblem(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) -> String? {
    guard
      let entry = try? ManifestLineParser.parse(
        bytes, line: line, schemes: schemes, recursive: recursive)
    else { return nil }
    return Self.ipv6LiteralProblem(sources: entry.sources)
  }

  /// Why an entry with `sources` cannot run when `refusesIPv6Literals`: the first source
  /// whose host is an IPv6 literal.
  static func ipv6LiteralProblem(sources: [URL]) -> String? {
    for (index, source) in sources.enumerated() where ManifestURL.hasIPv6LiteralHost(source) {
      let field = index == 0 ? "\"url\"" : "\"mirrors\" item \(index)"
      return "\(field) has an IPv6 literal host, which the URLSession transport cannot reach "
        + "(a swift-corelibs-foundation limit); use --transport curl"
    }
    return nil
  }

  /// `entry` with the digests `checksums` has for its path (a download's only).
  func applyingChecksums(to entry: ManifestEntry) -> ManifestEntry {
    guard !checksums.isEmpty, entry.operation == .download else { return entry }
    let listed = checksums.digests(for: entry.path)
    guard !listed.isEmpty else { return entry }
    var entry = entry
    var missing = DigestValues()
    for (algorithm, hex) in listed where entry.manifestDigests[algorithm] == nil {
      missing[algorithm] = hex
    }
    entry.checksumDigests = missing
    return entry
  }

  func error(line: Int, _ reason: String) -> ManifestError {
    ManifestError(manifest: displayName, line: line, reason: reason)
  }

  /// Why the folder upload of `relativePath` under `outputDirectory` cannot be sent, or
  /// `nil` when it is a folder (possibly through a symbolic link that stays in the output
  /// directory; one that leads out is no manifest error: the run fails it with
  /// `path_refused`). Looked up through the output directory's descriptor (`LocalTree`).
  static func uploadFolderProblem(_ relativePath: String, in outputDirectory: String) -> String? {
    let quoted = ManifestText.quoted(relativePath)
    switch localStatus(relativePath, in: outputDirectory) {
    case .success(let status):
      return status.isFolder ? nil : "upload folder \(quoted) is not a folder"
    case .failure(.refused):
      return nil
    case .failure:
      return "upload folder \(quoted) does not exist"
    }
  }

  /// Why the upload file at `relativePath` under `outputDirectory` cannot be sent, or `nil`
  /// when it is a regular file (possibly through a symbolic link that stays in the output
  /// directory; one that leads out is left to the run, which fails it with `path_refused`).
  static func uploadFileProblem(_ relativePath: String, in outputDirectory: String) -> String? {
    let quoted = ManifestText.quoted(relativePath)
    switch localStatus(relativePath, in: outputDirectory) {
    case .success(let status):
      return status.isRegularFile ? nil : "upload file \(quoted) is not a regular file"
    case .failure(.refused):
      return nil
    case .failure(.system(let code)) where code == ENOENT || code == ENOTDIR:
      return "upload file \(quoted) does not exist"
    case .failure(.system(let code)):
      return "cannot read upload file \(quoted): " + String(cString: strerror(code))
    case .failure(.notRegularFile):
      return "upload file \(quoted) is not a regular file"
    }
  }

  /// What is at `relativePath` below `outputDirectory`, symlinks resolved inside it
  /// (`LocalTree.status(of:followsLinks:)`); `ENOENT` when the directory cannot be opened.
  private static func localStatus(_ relativePath: String, in outputDirectory: String)
    -> Result<FileStatus, LocalTree.Failure>
  {
    LocalTree.withTree(at: outputDirectory) { tree in
      Result { () throws(LocalTree.Failure) in
        try tree.status(of: relativePath, followsLinks: true)
      }
    } ?? .failure(.system(ENOENT))
  }
}

/// What validation learned about a whole manifest.
public struct ManifestStatistics: Sendable, Hashable {
  /// Number of entries (lines that are transfers).
  public var entries: Int
  /// Sum of the `size` fields given.
  public var knownBytes: Int64
  /// Entries without a `size`.
  public var entriesWithoutSize: Int
  public init(entries: Int, knownBytes: Int64, entriesWithoutSize: Int) {
    self.entries = entries
    self.knownBytes = knownBytes
    self.entriesWithoutSize = entriesWithoutSize
  }
}

/// A bad manifest line (or an unreadable manifest): `MANIFEST:LINE: reason`.
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
  public var manifest: String
  /// 1-based physical line; 0 when the manifest as a whole cannot be read.
  public var line: Int
  public var reason: String
  public init(manifest: String, line: Int, reason: String) {
    self.manifest = manifest
    self.line = line
    self.reason = reason
  }
  public var description: String {
    line > 0 ? "\(manifest):\(line): \(reason)" : "\(manifest): \(reason)"
  }
}

/// The entries of a validated manifest, parsed lazily as they are pulled.
public struct ManifestEntries: Sequence, Sendable {
  public typealias Element = ManifestEntry
  let manifest: Manifest
  private let stop = ManifestStop()

  init(manifest: Manifest) {
    self.manifest = manifest
  }

  /// An iterator that ends at the end of the file, or at the first line that no longer
  /// parses or a read error (the file changed after `validate()`): `failure` then says
  /// which, so that a run can tell that it did not reach the manifest's end.
  public func makeIterator() -> AnyIterator<ManifestEntry> {
    let iterator = ManifestEntryIterator(manifest: manifest)
    let stop = stop
    return AnyIterator {
      do throws(ManifestError) {
        return try iterator.nextEntry()
      } catch {
        stop.record(error)
        return nil
      }
    }
  }

  /// Why an iterator of these entries ended before the manifest's end, if one did (the first
  /// such error); `nil` while every iteration ended at the end of the file.
  public var failure: ManifestError? { stop.error }

  /// An iterator whose `nextEntry()` throws when the file cannot be read or a line does not
  /// parse (the file changed after `validate()`), so the caller can stop the run.
  public func makeCheckedIterator() -> ManifestEntryIterator {
    ManifestEntryIterator(manifest: manifest)
  }
}

/// The error that ended an iteration of `ManifestEntries` early, shared by its iterators.
private final class ManifestStop: Sendable {
  private let first = Mutex<ManifestError?>(nil)

  var error: ManifestError? { first.withLock { $0 } }

  func record(_ error: ManifestError) {
    first.withLock { $0 = $0 ?? error }
  }
}

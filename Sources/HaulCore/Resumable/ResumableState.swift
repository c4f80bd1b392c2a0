import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a resumable upload left on disk for a later attempt or run: the protocol, the
/// endpoint it was created at, the upload's URL on the server, the source file's size and
/// modification time when it began (a changed file starts over), and the offset the server
/// last acknowledged. The offset is for people reading the file: an attempt always asks the
/// server.
///
/// Kept in the output directory's `.haul/uploads/`, as every upload strategy's state is, named by a
/// digest of the protocol, the URL and the entry's path; written whole to a temporary name
/// and renamed over the old state, so a crash leaves the old state or the new one.
struct ResumableState: Codable, Sendable, Hashable {
  var protocolName: String
  var url: String
  var location: String
  var size: Int64
  var modified: Double
  var offset: Int64

  /// The state file of the upload of `path` to `url` through `kind` in `directory`.
  static func path(directory: String, kind: ResumableProtocol, url: URL, path: String) -> String {
    let name = SHA256.hex(of: Array("\(kind.rawValue)\n\(url.absoluteString)\n\(path)".utf8))
    return directory + "/.haul/uploads/" + name.prefix(32) + ".json"
  }

  /// The state at `path`, `nil` when there is none or it cannot be read.
  static func read(_ path: String) -> ResumableState? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return try? JSONDecoder().decode(ResumableState.self, from: data)
  }

  /// Writes the state to `path` (its folder made as needed) through a temporary file.
  func write(to path: String) throws(TransferError) {
    try UploadStateFile.write(self, to: path)
  }

  /// Removes the state file at `path`, if any.
  static func remove(_ path: String) {
    unlink(path)
  }
}

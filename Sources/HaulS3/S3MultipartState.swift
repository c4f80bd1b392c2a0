import Foundation
import HaulCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a multipart upload has done so far, kept on disk so that a later run resumes it:
/// the upload ID, the source file's size and modification time when it began (a changed
/// file starts over), the part size, and each finished part's number and ETag.
///
/// Kept in the output directory's `.haul/uploads/` folder, never beside the source (sources
/// may be read-only), named by a digest of the URL and the entry's path; written whole to
/// a temporary name and renamed over the old state after each part, so a crash leaves the
/// old state or the new one, never a torn file.
struct S3MultipartState: Codable, Sendable, Hashable {
  struct Part: Codable, Sendable, Hashable {
    var number: Int
    var etag: String
  }

  var url: String
  var uploadID: String
  var size: Int64
  var modified: Double
  var partSize: Int64
  var parts: [Part]

  /// The state file of the upload of `path` to `url` in `directory` (the output directory).
  static func path(directory: String, url: URL, path: String) -> String {
    let name = SHA256.hex(of: Array((url.absoluteString + "\n" + path).utf8))
    return directory + "/.haul/uploads/" + name.prefix(32) + ".json"
  }

  /// The state at `path`, `nil` when there is none or it cannot be read.
  static func read(_ path: String) -> S3MultipartState? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return try? JSONDecoder().decode(S3MultipartState.self, from: data)
  }

  /// Writes the state to `path` (its folders made as needed) through a temporary file.
  func write(to path: String) throws(TransferError) {
    try UploadStateFile.write(self, to: path)
  }

  /// Removes the state file at `path`, if any.
  static func remove(_ path: String) {
    unlink(path)
  }
}

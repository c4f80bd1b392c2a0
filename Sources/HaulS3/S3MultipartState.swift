import Foundation
import HaulCore

/// What a multipart upload has done so far, kept on disk so that a later run resumes it:
/// the upload ID, the source file's size and modification time when it began (a changed
/// file starts over), the part size, and each finished part's number and ETag.
///
/// Kept in the output directory's `.haul/uploads/` folder (`UploadState`), never beside the
/// source (sources may be read-only), named by a digest of the URL and the entry's path;
/// written after each part, whole, so a crash leaves the old state or the new one.
struct S3MultipartState: UploadState, Hashable {
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
    UploadStateFile.path(directory: directory, key: url.absoluteString + "\n" + path)
  }
}

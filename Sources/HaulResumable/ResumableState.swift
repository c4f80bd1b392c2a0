import Foundation
import HaulCore

/// What a resumable upload left on disk for a later attempt or run: the protocol, the
/// endpoint it was created at, the upload's URL on the server, the source file's size and
/// modification time when it began (a changed file starts over), and the offset the server
/// last acknowledged. The offset is for people reading the file: an attempt always asks the
/// server.
///
/// Kept in the output directory's `.haul/uploads/`, as every upload strategy's state is
/// (`UploadState`), named by a digest of the protocol, the URL and the entry's path.
struct ResumableState: UploadState, Hashable {
  var protocolName: String
  var url: String
  var location: String
  var size: Int64
  var modified: Double
  var offset: Int64

  /// The state file of the upload of `path` to `url` through `kind` in `directory`.
  static func path(directory: String, kind: ResumableProtocol, url: URL, path: String) -> String {
    UploadStateFile.path(
      directory: directory, key: "\(kind.rawValue)\n\(url.absoluteString)\n\(path)")
  }
}

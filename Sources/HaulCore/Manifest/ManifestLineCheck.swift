import Foundation

/// What `Manifest.validate()` keeps of a good line (see `ManifestLineParser.check`): enough
/// for the checks that span lines (upload files, duplicate destinations) and for the
/// statistics.
struct ManifestLineCheck {
  /// The physical, 1-based line number.
  var line: Int
  var operation: ManifestEntry.Operation
  /// The entry's path, in normal form.
  var path: String
  /// `PUT` or `POST` for an upload, `GET` for a download (as `ManifestEntry.method`).
  var method: String
  var size: Int64?
  /// The line's own digests, to compare with checksum files'.
  var digests: DigestValues
  /// The `url`: always there for an upload, whose destination it is; a download's may be
  /// left unbuilt.
  var url: URL?
  /// Whether it is a folder entry (`recursive`): a folder to mirror or to upload.
  var isFolder: Bool
  /// The upload's `resumable` protocol, when the line names one.
  var resumable: ResumableProtocol?

  init(
    line: Int, operation: ManifestEntry.Operation, path: String, method: String? = nil,
    size: Int64? = nil, digests: DigestValues = DigestValues(), isFolder: Bool = false,
    url: URL?, resumable: ResumableProtocol? = nil
  ) {
    self.resumable = resumable
    self.line = line
    self.operation = operation
    self.path = path
    self.method = method ?? (operation == .upload ? "PUT" : "GET")
    self.size = size
    self.digests = digests
    self.url = url
    self.isFolder = isFolder
  }
}

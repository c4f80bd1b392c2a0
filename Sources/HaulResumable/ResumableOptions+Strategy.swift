import Foundation
import HaulCore

/// Resumable uploads as an upload strategy: an entry that names a protocol (or any file
/// upload under `--resumable`) goes through `ResumableUpload`.
extension ResumableOptions: UploadStrategy {
  package func takes(_ entry: ManifestEntry, to url: URL, source: String) -> Bool {
    resumable(entry) != nil
  }

  package func attempt(_ upload: UploadContext) async -> Result<Void, AttemptFailure> {
    guard let kind = resumable(upload.entry) else { return .success(()) }
    return await ResumableUpload(upload: upload, kind: kind, options: self).run()
  }

  /// Nothing is left to clean up: with `abortIncomplete` each failed attempt cancelled its
  /// upload already.
  package func abandon(_ upload: UploadContext) async -> String? { nil }
}

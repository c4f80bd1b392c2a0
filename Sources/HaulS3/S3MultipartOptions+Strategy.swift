import Foundation
import HaulCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// S3 multipart uploads as an upload strategy: an upload to the endpoint larger than the
/// threshold goes in parts (`S3MultipartUpload`).
extension S3MultipartOptions: UploadStrategy {
  /// Whether an upload of `entry` to `url` goes in parts: to the endpoint, larger than the
  /// threshold.
  package func takes(_ entry: ManifestEntry, to url: URL, source: String) -> Bool {
    guard entry.operation == .upload, endpoint.serves(url) else { return false }
    var info = stat()
    return stat(source, &info) == 0 && Int64(info.st_size) > threshold
  }

  package func attempt(_ upload: UploadContext) async -> Result<Void, AttemptFailure> {
    await S3MultipartUpload(upload: upload, options: self).run()
  }

  /// With `abortIncomplete`, aborts the upload the entry's attempts left
  /// (`AbortMultipartUpload`) and removes its state.
  package func abandon(_ upload: UploadContext) async -> String? {
    guard abortIncomplete else { return nil }
    let aborted = await S3MultipartUpload(upload: upload, options: self).abandon()
    return aborted ? "the multipart upload was aborted" : nil
  }
}

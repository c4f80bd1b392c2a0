import Foundation

/// The checksum of an object that a segmented download checks: S3 declares an object's
/// `x-amz-checksum-sha256` on a whole `GET` or a `HEAD`, never on a range, so a download in
/// segments of an object on the `--s3` endpoint asks a `HEAD` for it beside its probe.
extension EntryRunner {
  /// The digests S3 declares for the object at `url`, by a `HEAD` (signed, with
  /// `x-amz-checksum-mode: ENABLED`), when `url` is on the `--s3` endpoint and the object's
  /// validator is still `validator` (the version the segments fetch); empty otherwise, or
  /// when the `HEAD` fails (the segments are checked against the other digests then).
  func s3ObjectDigests(_ entry: ManifestEntry, _ url: URL, validator: String, job: EntryJob?)
    async -> [ExpectedDigest]
  {
    guard let s3 = options.interceptor as? S3SigningInterceptor, s3.endpoint.serves(url) else {
      return []
    }
    var request = request(entry, url)
    request.method = "HEAD"
    let sink = HeadSink()
    do throws(TransferError) {
      let response = try await send(request, for: entry, sink: sink, job: job)
      guard response.head.status == 200, Validator.from(response.head) == validator else {
        return []
      }
      return ServerDigests.declared(by: response.head)
    } catch {
      return []
    }
  }
}

/// Takes the head of a `HEAD`'s answer and wants no body: there is none, whatever its
/// `Content-Length` says.
private final class HeadSink: ResponseSink, @unchecked Sendable {
  func receive(head: ResponseHead) throws(TransferError) -> Bool { false }
  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {}
  func sent(totalBytes: Int64) {}
}

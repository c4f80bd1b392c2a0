import Foundation

/// Servers whose answers to a range carry none of the object's digests, though a whole
/// `GET` or a `HEAD` declares them (an object store's `x-amz-checksum-sha256`): a download
/// in segments from such a server asks a `HEAD` for them beside its probe, so that the
/// file it puts together is still checked.
package protocol HeadDigestSource: Sendable {
  /// Whether a segmented download from `url` asks a `HEAD` for the object's digests when
  /// its probe declares none.
  func asksHead(for url: URL) -> Bool
}

/// Servers whose large downloads go in ranges by default (an object store, built to serve
/// ranges of an object in parallel), when the run chose no `--segments`.
package protocol SegmentDefaults: Sendable {
  /// The segments a download of `size` bytes (`nil`: not known yet) from `url` goes in;
  /// `nil` for `SchedulerOptions.segments`.
  func segments(for url: URL, size: Int64?) -> Int?
}

/// The digests of an object that a segmented download checks, from a `HEAD`
/// (`SchedulerOptions.headDigests`).
extension EntryRunner {
  /// The digests a `HEAD` of `url` declares (sent as every request, through the run's
  /// interceptor), when `headDigests` asks for them and the object's validator is still
  /// `validator` (the version the segments fetch); empty otherwise, or when the `HEAD`
  /// fails (the segments are checked against the other digests then).
  func headDigests(_ entry: ManifestEntry, _ url: URL, validator: String, job: EntryJob?)
    async -> [ExpectedDigest]
  {
    guard options.headDigests?.asksHead(for: url) == true else { return [] }
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
private final class HeadSink: ResponseSink {
  func receive(head: ResponseHead) throws(TransferError) -> Bool { false }
  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {}
  func sent(totalBytes: Int64) {}
}

import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

/// Under `maxBytesPerSecond` the transport is paced as a whole, and pacing holds bytes, never
/// the start or the cancel of an exchange.
extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func an_exchange_started_while_a_capped_body_streams_is_answered_before_that_body_ends(
    _ kind: TransportKind
  ) async throws {
    try await withFaultServer { server in
      // 200 MB under 16 MB/s: about 12 s, far longer than the small exchange needs. A lower
      // cap would hold corelibs longer: under a cap, its libcurl reads up to 100 chunks per
      // socket event, each waiting for the paced delegate queue, and every other event of
      // the process's sessions (they share one work queue) waits behind them.
      let options = TransportOptions(maxBytesPerSecond: 16_000_000)
      try await kind.withTransport(options) { transport in
        try await withScratch { scratch in
          let big = try FileTestSink(path: scratch.file("big.bin"))
          let bigURL = server.dataURL("capped-big", size: 200_000_000, seed: 61)
          let streaming = Task {
            try await transport.perform(.download(bigURL, stallTimeout: 30), sink: big)
          }
          for _ in 0..<400 where big.bodyBytes < 1_000_000 {
            try await Task.sleep(for: .milliseconds(25))
          }
          #expect(big.bodyBytes >= 1_000_000, "the capped body did not start")

          let small = try FileTestSink(path: scratch.file("small.bin"))
          let watched = WatchingSink(small, watching: big)
          let smallURL = server.dataURL("capped-small", size: 1_000, seed: 62)
          let response = try await transport.perform(.download(smallURL), sink: watched)
          #expect(response.head.status == 200)
          #expect(small.finish() == TestContent.sha256(seed: 62, count: 1_000))
          // How far the big body was when the small one's last byte arrived (on the
          // transport's thread, not when the test pool resumed this task).
          let bigAtSmallEnd = watched.watchedBytesAtLastBody ?? .max
          #expect(bigAtSmallEnd < 200_000_000, "the small exchange waited for the big body")

          streaming.cancel()
          let error = await failure { () async throws(TransferError) in
            do {
              return try await streaming.value
            } catch let error as TransferError {
              throw error
            } catch {
              throw TransferError(.io, "\(error)")
            }
          }
          #expect(error?.code == .cancelled, "\(String(describing: error))")
        }
      }
    }
  }
}

/// A sink that writes through `inner` and notes, as each body piece arrives, how many body
/// bytes `watched` (another exchange's sink) has: the order of two exchanges as the
/// transport delivered them.
private final class WatchingSink: ResponseSink {
  let inner: FileTestSink
  let watched: FileTestSink
  private let seen = Mutex<Int64?>(nil)

  init(_ inner: FileTestSink, watching watched: FileTestSink) {
    self.inner = inner
    self.watched = watched
  }

  func receive(head: ResponseHead) throws(TransferError) -> Bool {
    try inner.receive(head: head)
  }

  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    try inner.receive(body: body)
    let bytes = watched.bodyBytes
    seen.withLock { $0 = bytes }
  }

  /// `watched`'s body bytes when this sink's last body piece arrived (`nil` before any).
  var watchedBytesAtLastBody: Int64? { seen.withLock { $0 } }
}

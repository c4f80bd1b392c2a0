import Foundation
import HaulCore

/// Holds a transport's exchanges to `--max-rate` by pacing the session's delegate queue.
///
/// Every body chunk delivered and every upload progress report is charged to a shared
/// `TokenBucket`; when the bucket is in debt, the delegate queue waits out the delay. That
/// queue is a `BoundedOperationQueue`, so once it has `capacity` callbacks waiting,
/// corelibs' work queue (where libcurl reads and writes the sockets) waits too, and TCP flow
/// control slows the servers. The queue serves every task of the session, so the pause
/// paces the transport as a whole, which is what one cap over all transfers means.
///
/// Why not `URLSessionTask.suspend()`: on Linux (swift-corelibs-foundation) it removes the
/// task's easy handle from the multi handle, which drops the connection, and `resume()`
/// adds it back, which sends the request again from the start: a download suspended and
/// resumed mid-way reaches the delegate as two responses, its first bytes twice.
///
/// Threading: `pace` runs on the delegate queue only; the bucket is thread-safe.
final class URLSessionRateLimiter: Sendable {
  private let bucket: TokenBucket

  /// Debts worth less than this much time are carried (paid back by a later pause) rather
  /// than slept for: a sleep per 16 KiB chunk would cost more in wake-ups than it paces.
  static let shortestPause = 0.01

  init(bytesPerSecond: Double) {
    bucket = TokenBucket(rate: bytesPerSecond, now: TokenBucket.now())
  }

  /// Charges `bytes` that have just moved and, when the bucket is in debt by at least
  /// `shortestPause`, blocks the calling (delegate) queue until it is paid back.
  func pace(_ bytes: Int) {
    guard bytes > 0 else { return }
    let delay = bucket.charge(bytes, now: TokenBucket.now())
    guard delay >= Self.shortestPause else { return }
    Thread.sleep(forTimeInterval: delay)
  }
}

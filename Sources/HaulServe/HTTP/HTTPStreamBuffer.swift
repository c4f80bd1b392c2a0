/// The state of one `HTTPStream` as a value: the bytes written and not yet handed to
/// libmicrohttpd, bounded by `limit`, and whether the stream is open, draining after the
/// writer's `close()`, or over. `HTTPStream` keeps it behind its lock and acts on what its
/// methods return.
struct HTTPStreamBuffer {
  enum Phase: Equatable {
    /// Writes are taken.
    case open
    /// The writer closed the stream; what it wrote is still being handed over.
    case closing
    /// Over; nothing more is taken or handed over.
    case ended(HTTPStream.EndReason)
  }

  /// What `append` did.
  enum AppendOutcome: Equatable {
    case accepted
    /// The stream is no longer open; nothing changed.
    case refused
    /// The bytes would have passed the limit: the stream is now over (`cutOff`) and its
    /// buffer dropped.
    case cutOff
  }

  /// What `read` did.
  enum ReadOutcome: Equatable {
    /// This many bytes were copied out.
    case bytes(Int)
    /// Nothing to hand over yet; the writer may write more.
    case empty
    /// The writer closed the stream and all of it was handed over: the body ends cleanly
    /// (the phase is now `ended(.finished)`).
    case finished
    /// The stream is over for another reason: the body breaks off.
    case broken
  }

  /// The most bytes held at once; a write that would pass it cuts the stream off, so a
  /// reader that falls this far behind costs no more memory.
  let limit: Int
  private(set) var phase = Phase.open
  /// Held bytes are `bytes[start...]`: reading advances `start` instead of moving what
  /// remains, and the array is compacted once the read part dominates.
  private var bytes: [UInt8] = []
  private var start = 0

  init(limit: Int) { self.limit = limit }

  /// The bytes held: written and not yet handed over.
  var count: Int { bytes.count - start }

  mutating func append(_ new: some Collection<UInt8>) -> AppendOutcome {
    guard phase == .open else { return .refused }
    guard new.count <= limit - count else {
      _ = end(.cutOff)
      return .cutOff
    }
    bytes.append(contentsOf: new)
    return .accepted
  }

  /// The writer is done: once what is held has been handed over, the body ends.
  mutating func close() {
    if phase == .open { phase = .closing }
  }

  /// Ends the stream unless it has already ended; false when it had.
  mutating func end(_ reason: HTTPStream.EndReason) -> Bool {
    if case .ended = phase { return false }
    phase = .ended(reason)
    bytes = []
    start = 0
    return true
  }

  /// Copies as many held bytes as fit into `destination`.
  mutating func read(into destination: UnsafeMutableRawBufferPointer) -> ReadOutcome {
    if case .ended(let reason) = phase { return reason == .finished ? .finished : .broken }
    guard count > 0 else {
      guard phase == .closing else { return .empty }
      _ = end(.finished)
      return .finished
    }
    let n = min(count, destination.count)
    bytes.withUnsafeBytes { held in
      destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: held[start..<start + n]))
    }
    start += n
    if start == bytes.count {
      // Keeps a small array's storage for the next writes; gives a large one back.
      bytes.removeAll(keepingCapacity: bytes.capacity <= Self.keptCapacity)
      start = 0
    } else if start > Self.keptCapacity && start > bytes.count / 2 {
      bytes.removeSubrange(0..<start)
      start = 0
    }
    return .bytes(n)
  }

  /// The storage an emptied buffer keeps, and how far reading runs ahead before the array
  /// is compacted: the array never holds more than twice the bytes held, or this much more.
  private static let keptCapacity = 64 * 1024
}

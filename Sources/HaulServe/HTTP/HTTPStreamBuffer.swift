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
  /// The writes held, in order, as the writer gave them: an array written to many streams
  /// (a commit's events to every reader) is shared by them, not copied into each. Held
  /// bytes are `chunks[head...]`, less the first `offset` bytes of `chunks[head]`.
  private var chunks: [[UInt8]] = []
  private var head = 0
  private var offset = 0
  /// The bytes held: written and not yet handed over.
  private(set) var count = 0

  init(limit: Int) { self.limit = limit }

  /// Holds `new`; an array is kept as it is (shared with the writer's other streams).
  mutating func append(_ new: [UInt8]) -> AppendOutcome {
    guard phase == .open else { return .refused }
    guard new.count <= limit - count else {
      _ = end(.cutOff)
      return .cutOff
    }
    guard !new.isEmpty else { return .accepted }
    chunks.append(new)
    count += new.count
    return .accepted
  }

  mutating func append(_ new: some Collection<UInt8>) -> AppendOutcome {
    append(Array(new))
  }

  /// The writer is done: once what is held has been handed over, the body ends.
  mutating func close() {
    if phase == .open { phase = .closing }
  }

  /// Ends the stream unless it has already ended; false when it had.
  mutating func end(_ reason: HTTPStream.EndReason) -> Bool {
    if case .ended = phase { return false }
    phase = .ended(reason)
    chunks = []
    head = 0
    offset = 0
    count = 0
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
    var copied = 0
    while copied < destination.count, head < chunks.count {
      let taken = chunks[head].withUnsafeBytes { chunk in
        let n = min(chunk.count - offset, destination.count - copied)
        UnsafeMutableRawBufferPointer(rebasing: destination[copied..<copied + n]).copyMemory(
          from: UnsafeRawBufferPointer(rebasing: chunk[offset..<offset + n]))
        return n
      }
      copied += taken
      offset += taken
      if offset == chunks[head].count {
        head += 1
        offset = 0
      }
    }
    count -= copied
    if head == chunks.count {
      chunks.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 64, head * 2 >= chunks.count {
      // The chunks handed over are dropped once they are most of the array.
      chunks.removeFirst(head)
      head = 0
    }
    return .bytes(copied)
  }
}

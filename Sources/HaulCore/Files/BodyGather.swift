/// A body's bytes gathered in memory before they are written at their place in a file, so
/// that the file sees few large writes instead of one per transport chunk (libcurl 7.88 hands
/// out at most 16 KiB at a time). The sink that owns it knows where the gathered bytes go;
/// this holds them and says when they fill its buffer.
///
/// Threading: one sink's, driven by one thread at a time; the owner calls `deallocate()`.
struct BodyGather {
  private var storage: UnsafeMutableRawBufferPointer?
  /// Bytes gathered and not yet handed out.
  private(set) var count = 0

  /// Copies `body` in, handing every full buffer to `write` (which must not touch this
  /// gather) and going on empty. The buffer, allocated by the first call, holds the
  /// `capacity` that call gave.
  mutating func append(
    _ body: UnsafeRawBufferPointer, capacity: Int,
    write: (UnsafeRawBufferPointer) throws(TransferError) -> Void
  ) throws(TransferError) {
    let buffer = storage ?? .allocate(byteCount: max(1, capacity), alignment: 16)
    storage = buffer
    var taken = 0
    while taken < body.count {
      let piece = min(buffer.count - count, body.count - taken)
      UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + piece)])
        .copyMemory(from: UnsafeRawBufferPointer(rebasing: body[taken..<(taken + piece)]))
      count += piece
      taken += piece
      if count == buffer.count { try drain(write) }
    }
  }

  /// Hands what is gathered to `write`, if anything is, and empties the buffer.
  mutating func drain(_ write: (UnsafeRawBufferPointer) throws(TransferError) -> Void)
    throws(TransferError)
  {
    guard count > 0, let storage else { return }
    let gathered = count
    count = 0
    try write(UnsafeRawBufferPointer(rebasing: storage[..<gathered]))
  }

  /// Frees the buffer.
  func deallocate() {
    storage?.deallocate()
  }
}

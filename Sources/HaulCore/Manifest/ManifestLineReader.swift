import Foundation

/// Reads a manifest file descriptor line by line with `read(2)` in 64 KiB chunks, holding at
/// most one line (up to `maximumLineLength`) plus one chunk in memory.
///
/// Lines end at `\n`; one `\r` before it is dropped, so CRLF files read the same; the last
/// line may lack its `\n`. A UTF-8 byte order mark at the very start is skipped. Line numbers
/// are physical and 1-based, blank lines included. A line longer than `maximumLineLength`
/// (not counting its line break) is reported as `.tooLong` as soon as that is known, without
/// reading the rest of it into memory; reading then goes on after its end.
///
/// Owns and closes the descriptor. Not thread-safe: one pass, one owner.
final class ManifestLineReader {
  /// The longest line accepted: 1 MiB.
  static let maximumLineLength = 1 << 20
  /// How much each `read(2)` asks for.
  static let chunkSize = 64 << 10

  /// What `next()` found.
  enum Event {
    /// Line `number`'s bytes, without the line break; valid only until the next call.
    case line(number: Int, bytes: UnsafeBufferPointer<UInt8>)
    /// Line `number` is longer than `maximumLineLength`.
    case tooLong(number: Int)
    /// `read(2)` failed with this `errno`; the pass is over.
    case readFailed(errno: Int32)
  }

  private let descriptor: Int32
  private var buffer: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// Unconsumed bytes are `buffer[start..<end]`; no `\n` lies in `buffer[start..<scanned]`.
  private var start = 0
  private var end = 0
  private var scanned = 0
  private var lineNumber = 0
  private var atEndOfFile = false
  private var failed = false
  /// After `.tooLong`: the rest of that line is being thrown away.
  private var skippingRestOfLine = false

  /// Takes ownership of `descriptor`, open for reading.
  init(descriptor: Int32) {
    self.descriptor = descriptor
    capacity = 2 * Self.chunkSize
    buffer = .allocate(capacity: capacity)
  }

  /// Opens `path` for reading; `nil` with `errno` set when it cannot be opened.
  convenience init?(path: String) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.init(descriptor: descriptor)
  }

  deinit {
    buffer.deallocate()
    close(descriptor)
  }

  /// The next line, or `nil` at the end of the file (and after a read error).
  func next() -> Event? {
    while !failed {
      if scanned < end, let found = memchr(buffer + scanned, 0x0A, end - scanned) {
        let newline = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
        let lineStart = start
        start = newline + 1
        scanned = start
        if skippingRestOfLine {
          skippingRestOfLine = false
          continue
        }
        return emit(from: lineStart, to: newline)
      }
      scanned = end
      if skippingRestOfLine {
        start = end
        scanned = end
      } else if end - start > Self.maximumLineLength + 1 {
        // Even if a "\r\n" came next, this line is already too long.
        lineNumber += 1
        skippingRestOfLine = true
        start = end
        scanned = end
        return .tooLong(number: lineNumber)
      }
      if atEndOfFile {
        guard start < end, !skippingRestOfLine else { return nil }
        let lineStart = start
        start = end
        scanned = end
        return emit(from: lineStart, to: end)
      }
      if let error = fill() {
        failed = true
        return .readFailed(errno: error)
      }
    }
    return nil
  }

  private func emit(from lineStart: Int, to lineEnd: Int) -> Event {
    lineNumber += 1
    var first = lineStart
    var last = lineEnd
    if last > first, buffer[last - 1] == 0x0D { last -= 1 }
    if last - first > Self.maximumLineLength { return .tooLong(number: lineNumber) }
    if lineNumber == 1, last - first >= 3, buffer[first] == 0xEF, buffer[first + 1] == 0xBB,
      buffer[first + 2] == 0xBF
    {
      first += 3
    }
    return .line(
      number: lineNumber, bytes: UnsafeBufferPointer(start: buffer + first, count: last - first))
  }

  /// Moves the unconsumed bytes to the front, makes room for one more chunk, and reads it.
  /// Returns `errno` on failure.
  private func fill() -> Int32? {
    if start > 0 {
      if end > start { memmove(buffer, buffer + start, end - start) }
      end -= start
      scanned -= start
      start = 0
    }
    if end + Self.chunkSize > capacity {
      let newCapacity = min(
        max(capacity * 2, end + Self.chunkSize), Self.maximumLineLength + 1 + Self.chunkSize)
      let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
      grown.update(from: buffer, count: end)
      buffer.deallocate()
      buffer = grown
      capacity = newCapacity
    }
    while true {
      let count = read(descriptor, buffer + end, Self.chunkSize)
      if count > 0 {
        end += count
        return nil
      }
      if count == 0 {
        atEndOfFile = true
        return nil
      }
      if errno != EINTR { return errno }
    }
  }
}

import Dispatch
import Foundation
import Glibc
import HaulCore
import Synchronization

/// Writes the `--events` lines to standard output from a thread of its own, behind a buffer
/// of at most `capacity` bytes of lines, so that a reader of standard output that pauses
/// holds no transfer back until the buffer is full.
///
/// Why: the scheduler calls its event handler one event at a time, often on a curl loop's
/// thread. Written there, a line to a pipe whose reader pauses blocks as soon as the pipe is
/// full, and with it every transfer on that loop and every other event of the run.
///
/// Order: the lines are buffered in the order `enqueue` is called, which is the order the
/// scheduler emits its events, and one thread writes them, so each entry's lines keep their
/// order and the summary comes last. What must happen before a line is printed (the report's
/// spool line of a `done`) happens before `enqueue`.
///
/// Back-pressure: a line that finds the buffer full makes `enqueue` wait until the writer has
/// written a slice (`sliceBytes`) of what it holds, so memory stays bounded, and a reader that
/// never reads stops the run only `capacity` bytes after a full pipe would have. A `progress` line that finds the
/// buffer full is dropped instead: it is a sample, and the entry's next one carries its
/// counters further.
///
/// Threading: `enqueue` from the scheduler's serialized handler (one call at a time);
/// `finish` once, after the run, from the command; the writes on the writer thread only.
final class EventOutput: Sendable {
  /// The most bytes of lines held, waiting or being written. A small file's `start` and
  /// `done` lines take a few hundred bytes, so this covers the events of thousands of files
  /// however long the reader pauses, in memory a run can spare.
  static let capacity = 8 << 20

  private struct State {
    var lines = EventLines()
    /// Lines waiting for the writer.
    var pending = ""
    /// Bytes the writer has taken and not yet written.
    var writing = 0
    /// Whether `enqueue` waits for the writer to make room.
    var waiting = false
    /// Set by `finish`: the writer ends once nothing is pending.
    var finished = false
  }

  private let state = Mutex(State())
  /// Signalled when lines are pending or `finish` was called: wakes the writer.
  private let ready = DispatchSemaphore(value: 0)
  /// Signalled by the writer after a write while `enqueue` waits for room.
  private let room = DispatchSemaphore(value: 0)
  /// Signalled by the writer when it ends.
  private let ended = DispatchSemaphore(value: 0)

  /// Starts the writer thread; `write` takes each slice of lines and returns `false` once
  /// the output refuses it (a closed pipe), after which nothing more is written; `written`
  /// is called after each slice (the reader has taken it, or the output refused it).
  init(
    write: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool = {
      writeAll(STDOUT_FILENO, $0)
    },
    written: @escaping @Sendable () -> Void = {}
  ) {
    let thread = Thread { [self] in run(write, written: written) }
    thread.name = "haul.events"
    thread.start()
  }

  /// Buffers the lines of `event` for the writer; waits while the buffer is full, except
  /// for `progress` lines, which are then dropped.
  func enqueue(_ event: TransferEvent) {
    var isProgress = false
    if case .progress = event { isProgress = true }
    var text: String?
    while true {
      let taken = state.withLock { state -> Bool in
        if text == nil {
          let lines = state.lines.lines(for: event)
          text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
        }
        guard let text, !text.isEmpty else { return true }
        let held = state.pending.utf8.count + state.writing
        if held > 0, held + text.utf8.count > Self.capacity {
          if isProgress { return true }
          state.waiting = true
          return false
        }
        state.pending += text
        return true
      }
      if taken { break }
      room.wait()
    }
    ready.signal()
  }

  /// Waits until every buffered line is written (or the output refused one) and the writer
  /// has ended.
  func finish() {
    state.withLock { $0.finished = true }
    ready.signal()
    ended.wait()
  }

  /// The writer: takes whatever is pending at once and writes it in slices of at most
  /// `sliceBytes`, each ending at a line's end, making room for `enqueue` after each. The
  /// pending text and the writer's are swapped, so neither is allocated again.
  private func run(
    _ write: @Sendable (UnsafeRawBufferPointer) -> Bool, written: @Sendable () -> Void
  ) {
    var open = true
    var batch = ""
    while true {
      ready.wait()
      let finished = state.withLock { state in
        swap(&batch, &state.pending)
        state.writing = batch.utf8.count
        return state.finished
      }
      if open, !batch.isEmpty {
        batch.withUTF8 { bytes in
          let bytes = UnsafeRawBufferPointer(bytes)
          var start = 0
          while open, start < bytes.count {
            let end = Self.sliceEnd(bytes, from: start)
            open = write(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            written()
            made(room: end - start)
            start = end
          }
        }
      }
      batch.removeAll(keepingCapacity: true)
      made(room: nil)
      if finished && state.withLock({ $0.pending.isEmpty }) { break }
    }
    ended.signal()
  }

  /// The most bytes the writer hands `write` at once: what a pipe holds, so that a reader
  /// that reads slowly sees one slice end after another (`written`), and `enqueue` gets room
  /// as each ends rather than once the whole batch has.
  static let sliceBytes = 64 << 10

  /// The end of the slice of `bytes` that starts at `start`: past the last newline within
  /// `sliceBytes`, past the first one after it when a line is longer, or the end.
  private static func sliceEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
    let limit = start + sliceBytes
    guard limit < bytes.count, let base = bytes.baseAddress else { return bytes.count }
    let newline = UInt8(ascii: "\n")
    if let last = bytes[start..<limit].lastIndex(of: newline) { return last + 1 }
    guard let next = memchr(base + limit, Int32(newline), bytes.count - limit) else {
      return bytes.count
    }
    return base.distance(to: UnsafeRawPointer(next)) + 1
  }

  /// Takes `count` bytes (all, when `nil`) off what the writer holds, and wakes `enqueue`
  /// when it waits for room.
  private func made(room count: Int?) {
    let wakes = state.withLock { state in
      state.writing = count.map { max(0, state.writing - $0) } ?? 0
      defer { state.waiting = false }
      return state.waiting
    }
    if wakes { room.signal() }
  }
}

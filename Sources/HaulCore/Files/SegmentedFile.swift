import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The partial file of a segmented download: where each segment has got to, how far the
/// file is written without a gap from byte 0 (the frontier), and the digests of the whole
/// file, when it has any to compute.
///
/// The digests are fed by a `DigestWorker` on a thread of its own, which reads back from the
/// file (normally still in the page cache) the bytes below the frontier as it moves; the
/// transport threads that write the segments only move the frontier, so hashing runs beside
/// the network, never on a transport's loop thread, and each byte is hashed once whichever
/// segment wrote it and in whatever order the segments arrive. Without digests nothing is
/// read back.
///
/// Thread-safe: segment sinks call `wrote` from transport threads while the entry's task
/// calls `progress`, `frontier` and `digests()`; all state is behind one lock, never held
/// during I/O.
package final class SegmentedFile: Sendable {
  package let fd: Int32
  /// Hashes the frontier's prefix; `nil` without digests, or when its thread could not start
  /// (`digests()` then fails).
  private let worker: DigestWorker?
  private let hashes: Bool
  private let counter: ProgressCounter
  private let state: Mutex<(segments: [SegmentProgress], frontier: Int64, present: Int64)>

  /// - Parameters:
  ///   - segments: the plan, with the progress already on disk (a resume).
  ///   - hasher: fresh digests, which this object feeds from byte 0, the bytes already on
  ///     disk included; `nil` computes none.
  package init(
    fd: Int32, segments: [SegmentProgress], hasher: DigestSet?, counter: ProgressCounter
  ) {
    self.fd = fd
    self.hashes = hasher != nil
    self.worker = hasher.flatMap { DigestWorker(fd: fd, start: 0, hasher: $0) }
    self.counter = counter
    let present = segments.reduce(0) { $0 + ($1.next - $1.start) }
    var initial = (segments: segments, frontier: Int64(0), present: present)
    Self.advanceFrontier(&initial)
    self.state = Mutex(initial)
    counter.store(present)
    worker?.advance(to: initial.frontier)
  }

  /// Each segment's progress, for the resume state.
  package var progress: [SegmentProgress] { state.withLock { $0.segments } }

  /// How far the file is written without a gap from byte 0.
  package var frontier: Int64 { state.withLock { $0.frontier } }

  /// Records that segment `index` wrote `count` bytes at `offset` (after `pwrite` returned),
  /// and hands the bytes the frontier passes to the digests' worker.
  package func wrote(segment index: Int, at offset: Int64, count: Int) {
    let (present, frontier) = state.withLock { state in
      state.segments[index].next = offset + Int64(count)
      state.present += Int64(count)
      let before = state.frontier
      if offset <= before { Self.advanceFrontier(&state) }
      return (state.present, state.frontier > before ? state.frontier : nil)
    }
    counter.store(present)
    if let frontier { worker?.advance(to: frontier) }
  }

  /// Moves the frontier over every segment's written bytes that continue it.
  private static func advanceFrontier(
    _ state: inout (segments: [SegmentProgress], frontier: Int64, present: Int64)
  ) {
    while let segment = state.segments.first(where: {
      $0.start <= state.frontier && state.frontier < $0.next
    }) {
      state.frontier = segment.next
    }
  }

  /// The digests of the file up to the frontier (call it once the segments are done): an
  /// empty set when none were asked for. Throws when the file could not be read back or the
  /// worker could not start.
  package func digests() async throws(TransferError) -> DigestValues {
    guard hashes else { return DigestValues() }
    guard let values = await worker?.finish() else {
      throw TransferError(.io, "cannot read the partial file back to hash it")
    }
    return values
  }

  /// Stops the digests' worker, when the download ends without `digests()`.
  package func abandon() {
    worker?.abandon()
  }
}

/// Receives one segment's response: checks it is exactly the range asked for, then writes
/// it at its offset through the shared `SegmentedFile`, gathering the transport's chunks
/// into `pwrite`s of `DownloadSink.writeSize` (libcurl hands out 16 KiB at a time). The
/// segment's progress on disk, and so its resume state, counts only bytes written: call
/// `flush()` when the exchange ends, whatever its outcome; the segment's last byte is
/// written as it arrives.
///
/// Threading as `ResponseSink` requires: one transport thread at a time; `flush()` after
/// the exchange returned.
final class SegmentSink: ResponseSink, @unchecked Sendable {
  private let file: SegmentedFile
  private let index: Int
  private let requested: ByteRange
  private let total: Int64
  private let counter: ProgressCounter
  /// The validator the segment's request sent as `If-Range`.
  private let ifRange: String?
  private(set) var plan: ResponseValidation.Plan?
  /// The next byte of the body to arrive: the segment's end once it is complete.
  private(set) var offset: Int64
  /// Bytes received but not yet written, from `bufferStart` on.
  private var gather = BodyGather()
  private var bufferStart: Int64
  /// Why the segmented download must start over, when the server sent the whole resource or
  /// a range of another version (it changed, or it stopped honouring ranges or `If-Range`).
  /// The exchange is aborted with a `protocol` error of the same reason, which stays the
  /// failure should a fresh start meet this again.
  private(set) var restartReason: String?

  init(
    file: SegmentedFile, index: Int, requested: ByteRange, total: Int64,
    counter: ProgressCounter, ifRange: String? = nil
  ) {
    self.file = file
    self.index = index
    self.requested = requested
    self.total = total
    self.counter = counter
    self.ifRange = ifRange
    self.offset = requested.start
    self.bufferStart = requested.start
  }

  func receive(head: ResponseHead) throws(TransferError) -> Bool {
    let plan = ResponseValidation.plan(
      for: head, requested: requested, expectedSize: total, ifRange: ifRange)
    self.plan = plan
    switch plan {
    case .write(_, _, restart: true):
      throw restart(because: "the server sent the whole file to a range request")
    case .restart where head.status == 206:
      throw restart(because: "the server sent a range of another version")
    case .write(let offset, _, _):
      self.offset = offset
      self.bufferStart = offset
      return true
    case .fail(let error):
      throw error
    case .complete, .restart, .discard:
      return false
    }
  }

  private func restart(because reason: String) -> TransferError {
    restartReason = reason
    return TransferError(.protocol, reason)
  }

  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    guard !body.isEmpty else { return }
    let end = (requested.end ?? total - 1) + 1
    guard offset + Int64(body.count) <= end else {
      throw TransferError(.protocol, "a segment's body is longer than its range")
    }
    if gather.count == 0, body.count >= DownloadSink.writeSize {
      try write(body, at: offset)
    } else {
      try gather.append(body, capacity: DownloadSink.writeSize, write: writeGathered)
    }
    offset += Int64(body.count)
    counter.add(moved: Int64(body.count))
    if offset == end { try flush() }
  }

  /// Writes every byte received and not yet written.
  func flush() throws(TransferError) {
    try gather.drain(writeGathered)
  }

  private func writeGathered(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
    try write(bytes, at: bufferStart)
  }

  /// Writes `bytes` at `position` in pieces of at most `DownloadSink.writeSize`, each
  /// recorded in the segment's progress once written.
  private func write(_ bytes: UnsafeRawBufferPointer, at position: Int64) throws(TransferError) {
    var done = 0
    while done < bytes.count {
      let piece = UnsafeRawBufferPointer(
        rebasing: bytes[done..<min(bytes.count, done + DownloadSink.writeSize)])
      let at = position + Int64(done)
      try FileErrors.pwriteAll(file.fd, piece, at: at, what: "cannot write the partial file")
      file.wrote(segment: index, at: at, count: piece.count)
      done += piece.count
    }
    bufferStart = position + Int64(bytes.count)
  }

  deinit {
    gather.deallocate()
  }
}

/// Receives the answer to a size probe (`Range: bytes=0-0`): keeps the head of a 206 and
/// aborts on anything that would send the whole body.
final class ProbeSink: ResponseSink, @unchecked Sendable {
  private(set) var head: ResponseHead?
  /// Whether the server answered with the whole body (a 200 that is not the range asked
  /// for, `ResponseValidation.answersRange`): it ignores ranges, and the
  /// file is fetched as one stream. The exchange is aborted with a `protocol` error, which
  /// is not the entry's failure.
  private(set) var ignoresRanges = false

  func receive(head: ResponseHead) throws(TransferError) -> Bool {
    self.head = head
    let answered = ResponseValidation.answersRange(head, requested: Self.requested)
    if head.status == 200, !answered {
      ignoresRanges = true
      throw TransferError(.protocol, "the server ignores ranges")
    }
    return answered
  }

  /// The range a probe asks for: the first byte.
  static let requested = ByteRange(start: 0, end: 0)

  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    guard body.count <= 1 else {
      throw TransferError(.protocol, "a one-byte range answered with more")
    }
  }
}

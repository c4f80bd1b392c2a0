#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Receives a download's response into its partial file: decides with `ResponseValidation`
/// where the body goes (or that it is discarded), records the resume state before the first
/// write that leaves the body unfinished, then gathers the body's chunks up to `gatherSize`
/// bytes and writes them at their offset in `pwrite`s of at most `writeSize`, and feeds the
/// digests (when it has any: a download with no checksum to verify, no report to show a
/// digest and no digest from its server need not hash). Whoever drives the sink calls
/// `flush()` when the exchange ends.
///
/// With `readsServerDigests`, the digests the final response head declares
/// (`ServerDigests`) are kept in `serverDigests` for the attempt to check, beside those a
/// resumed body's state recorded from its first response; an algorithm the set lacks is
/// added before the first byte, the prefix already on disk hashed into it first.
///
/// The resume state is written only when it can serve: before the first write to the file
/// that leaves the body unfinished (`writesState`). A body of up to `gatherSize` bytes
/// reaches the file in one flush however many chunks it came in (over TLS, always
/// several), so a small file writes none, saving a file creation, a write, a close, two
/// renames and an unlink per file. Until that first write the partial file is empty on disk
/// (what came is in the buffer), so a state written earlier could resume nothing more. A
/// crash between that one flush and the rename leaves a partial without state, which the
/// next run starts over: at most `gatherSize` bytes are fetched again. With a finisher
/// (`--fsync`) the state is queued then and lands on its thread (`LocalDownload.recordState`),
/// possibly after that first write, with the same outcome of a crash between; a body from the
/// first byte removes an older state before anything is written.
///
/// Threading: driven by one transport thread at a time, as `ResponseSink` requires; the
/// owning task reads its results only after the exchange returned. Progress is published
/// through `progress`, an atomic.
// unchecked: one transport thread at a time drives it, its owner reads it after the exchange.
package final class DownloadSink: ResponseSink, @unchecked Sendable {
  private let fd: Int32
  private let local: LocalDownload
  /// The digests computed; grown in `receive(head:)` by the algorithms the server declares.
  private var hasher: DigestSet?
  private let readsServerDigests: Bool
  private let requested: ByteRange?
  private let expectedSize: Int64?
  private let stateTemplate: ResumeState
  /// Whether the resume state is still to be recorded before the body's first write to the
  /// file, unless that write completes it; `false` once that write was made (or when the
  /// response is not written). The state itself is built only when it is written, so a body
  /// that arrives whole copies none of its strings.
  private var statePending = false
  /// The validator of the response being written, for the state (`statePending`).
  private var pendingValidator: String?
  /// Whether the partial file may still be without a name (`LocalDownload.namePartial`):
  /// `false` once a write that leaves the body unfinished named it.
  private var partialMayBeUnnamed = true
  /// The body's end offset, when the response says it.
  private var total: Int64?
  /// Hashes a large body beside the transfer (see `DigestWorker`); `nil` for small ones,
  /// which are hashed inline.
  private var digestWorker: DigestWorker?

  /// Bodies with at least this many bytes to come are hashed by a `DigestWorker`: below it,
  /// a thread costs more than the digest it would move.
  package static let backgroundDigestThreshold: Int64 = 4 << 20
  /// Bytes present in the partial file: the resumed prefix plus what arrived.
  package let progress: ProgressCounter
  /// Bytes accepted but not yet written; its buffer is allocated only for a body that does
  /// not arrive whole in one chunk.
  private var gather = BodyGather()
  /// The file offset of the first buffered byte: everything before it is on disk.
  private var bufferStart: Int64

  /// The most bytes a body's chunks are gathered into before they are written (a smaller
  /// body is gathered whole): a sixteenth of the writes of libcurl's 16 KiB chunks, and few
  /// enough bytes in memory per transfer. A body of up to this size that arrives in pieces
  /// never needs a resume state.
  package static let gatherSize = 256 << 10
  /// The largest `pwrite`: what is gathered, and a chunk too large to gather, is written in
  /// pieces of at most this size. Larger writes into the page cache cost far more per byte
  /// on a VM that hands its free pages back to its host (Benchmarks/results/HISTORY.md).
  package static let writeSize = 128 << 10

  /// The plan taken for the last response head.
  package private(set) var plan: ResponseValidation.Plan?
  /// The next write position: the partial file's length once the body is complete.
  package private(set) var offset: Int64
  /// Body bytes written in this exchange.
  package private(set) var written: Int64 = 0
  /// The server's digests of the whole file that this body must match: those the final
  /// response head declared and, for a resumed body whose validator held, those the state
  /// kept from its first response (a declaration of the same source keeps the first).
  /// Empty unless `readsServerDigests`.
  package private(set) var serverDigests: [ExpectedDigest] = []
  /// The start of a discarded error answer's body, for the run's `ErrorBodyClassifier`;
  /// `nil` for any other answer, and for a status the classifier does not read.
  package private(set) var errorBody: ErrorBody?
  private let errorBodies: (any ErrorBodyClassifier)?

  /// - Parameters:
  ///   - fd: the open partial file, already holding `requested.start` bytes (or none).
  ///   - hasher: already fed with the partial file's existing prefix; `nil` computes no
  ///     digest unless the server declares one.
  ///   - state: the resume state to record; for a resumed body, its `server` digests are
  ///     those its first response declared (`hasher` then computes their algorithms).
  ///   - readsServerDigests: whether the digests the server declares are checked.
  ///   - errorBodies: reads the start of a discarded error answer's body.
  package init(
    fd: Int32, local: LocalDownload, hasher: DigestSet?, requested: ByteRange?,
    expectedSize: Int64?, state: ResumeState, progress: ProgressCounter,
    readsServerDigests: Bool = false, errorBodies: (any ErrorBodyClassifier)? = nil
  ) {
    self.errorBodies = errorBodies
    self.fd = fd
    self.local = local
    self.hasher = hasher
    self.readsServerDigests = readsServerDigests
    self.requested = requested
    self.expectedSize = expectedSize
    self.stateTemplate = state
    self.progress = progress
    self.offset = requested?.start ?? 0
    self.bufferStart = offset
    progress.store(offset)
  }

  package func receive(head: ResponseHead) throws(TransferError) -> Bool {
    try flush()
    let plan = ResponseValidation.plan(
      for: head, requested: requested, expectedSize: expectedSize,
      knownTotal: requested == nil ? nil : stateTemplate.total,
      ifRange: requested == nil ? nil : stateTemplate.validator)
    self.plan = plan
    switch plan {
    case .write(let offset, let total, let restart):
      guard digestWorker == nil else {
        throw TransferError(.protocol, "a second response head arrived after the body began")
      }
      if restart {
        guard ftruncate(fd, 0) == 0 else { throw FileErrors.error(errno, "cannot truncate") }
        hasher?.reset()
      }
      if offset == 0 { local.dropState() }
      self.offset = offset
      self.bufferStart = offset
      self.total = total
      if readsServerDigests { try adoptServerDigests(of: head, resumed: !restart) }
      if let hasher, let total, total - offset >= Self.backgroundDigestThreshold {
        digestWorker = DigestWorker(fd: fd, start: offset, hasher: hasher)
      }
      progress.store(offset)
      if let total { progress.store(expected: total) }
      local.noteLastModified(head.value(for: "Last-Modified"))
      local.noteETag(of: head)
      pendingValidator = Validator.from(head)
      statePending = true
      return true
    case .fail(let error):
      throw error
    case .complete:
      // The partial file already holds the whole body: what its first response declared
      // still counts.
      if readsServerDigests { serverDigests = stateTemplate.server ?? [] }
      return false
    case .discard where errorBodies?.captures(status: head.status) == true:
      errorBody = ErrorBody.capturing(status: head.status, for: errorBodies)
      return true
    case .restart, .discard:
      return false
    }
  }

  /// Takes the digests `head` declares (with a resumed body's recorded ones first) and
  /// makes the set compute each of their algorithms, hashing into a newly added algorithm
  /// the bytes already before `offset`.
  private func adoptServerDigests(of head: ResponseHead, resumed: Bool) throws(TransferError) {
    var digests = resumed ? stateTemplate.server ?? [] : []
    for declared in ServerDigests.declared(by: head)
    where !digests.contains(where: { $0.source == declared.source }) {
      digests.append(declared)
    }
    serverDigests = digests
    let missing = ExpectedDigest.algorithms(digests).filter { hasher?.computes($0) != true }
    guard !missing.isEmpty else { return }
    let added = DigestSet(missing)
    if offset > 0 {
      let hashed = try LocalDownload.hash(fd: fd, upTo: offset, into: added)
      guard hashed == offset else {
        throw TransferError(.io, "the partial file of \(local.path) shrank while resuming")
      }
    }
    hasher = hasher.map { $0.merged(with: added) } ?? added
  }

  package func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    guard !body.isEmpty else { return }
    if errorBody != nil {
      errorBody?.append(body)
      return
    }
    if let expectedSize, offset + Int64(body.count) > expectedSize {
      throw TransferError(.sizeMismatch, "server sent more than the expected \(expectedSize) bytes")
    }
    if digestWorker == nil { hasher?.update(body) }
    let end = offset + Int64(body.count)
    if gather.count == 0, body.count >= Self.gatherSize || total == end {
      try write(body, at: offset)
    } else {
      let remaining = total.map { max(0, $0 - offset) } ?? Int64(Self.gatherSize)
      try gather.append(
        body, capacity: Int(min(Int64(Self.gatherSize), max(remaining, Int64(body.count)))),
        write: writeGathered)
    }
    offset = end
    written += Int64(body.count)
    progress.add(moved: Int64(body.count))
    progress.store(offset)
  }

  /// Writes every buffered byte to the file. Call when the exchange ended, whatever its
  /// outcome, so a failed transfer keeps all it received for the next attempt.
  package func flush() throws(TransferError) {
    try gather.drain(writeGathered)
  }

  /// Writes gathered bytes where they belong: at the first byte not yet on disk.
  private func writeGathered(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
    try write(bytes, at: bufferStart)
  }

  private func write(_ bytes: UnsafeRawBufferPointer, at position: Int64) throws(TransferError) {
    let unfinished = Self.writesState(
      beforeWriteEndingAt: position + Int64(bytes.count), total: total)
    if partialMayBeUnnamed, unfinished {
      partialMayBeUnnamed = false
      try local.namePartial(fd)
    }
    if statePending {
      statePending = false
      if unfinished { try local.recordState(pendingState()) }
    }
    var done = 0
    while done < bytes.count {
      let piece = UnsafeRawBufferPointer(
        rebasing: bytes[done..<min(bytes.count, done + Self.writeSize)])
      try FileErrors.pwriteAll(
        fd, piece, at: position + Int64(done), what: "cannot write \(local.path)")
      done += piece.count
    }
    bufferStart = position + Int64(bytes.count)
    digestWorker?.advance(to: bufferStart)
  }

  /// The state recorded before the body's first write: the template with the response's
  /// validator, total and declared digests.
  private func pendingState() -> ResumeState {
    var state = stateTemplate
    state.validator = pendingValidator
    state.total = total
    state.server = serverDigests.isEmpty ? nil : serverDigests
    return state
  }

  /// Whether the resume state must be on disk before a write that leaves the partial file
  /// `end` bytes long, the first of the body: unless the write completes a body of known
  /// `total` (a body of unknown length may always go on).
  package static func writesState(beforeWriteEndingAt end: Int64, total: Int64?) -> Bool {
    total.map { end < $0 } ?? true
  }

  /// Whether this sink computes a digest (known once the response head arrived).
  package var hashes: Bool { hasher != nil }

  /// Whether the digest is computed inline, so `inlineDigest()` has it without waiting.
  package var digestIsReady: Bool { digestWorker == nil }

  /// The digests of an inline-hashed body (see `digestIsReady`), `nil` when none is
  /// computed or the body cannot be written out. Call once, like `digest()`.
  package func inlineDigest() -> DigestValues? {
    guard digestWorker == nil, (try? flush()) != nil else { return nil }
    return hasher?.finalize()
  }

  /// The digests of the partial file's bytes (the resumed prefix and this body), once the
  /// exchange returned; `nil` when none is computed or a large body could not be read back
  /// to hash it. Call once: the digests are finished afterwards.
  package func digest() async -> DigestValues? {
    guard (try? flush()) != nil else { return nil }
    guard let worker = digestWorker else { return hasher?.finalize() }
    digestWorker = nil
    return await worker.finish()
  }

  deinit {
    digestWorker?.abandon()
    gather.deallocate()
  }
}

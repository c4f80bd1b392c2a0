#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Receives a download's response into its partial file: decides with `ResponseValidation`
/// where the body goes (or that it is discarded), records the resume state before the first
/// byte lands, then `pwrite`s each chunk at its offset and feeds the digest.
///
/// Threading: driven by one transport thread at a time, as `ResponseSink` requires; the
/// owning task reads its results only after the exchange returned. Progress is published
/// through `progress`, an atomic.
public final class DownloadSink: ResponseSink, @unchecked Sendable {
  private let fd: Int32
  private let local: LocalDownload
  private let hasher: SHA256
  private let requested: ByteRange?
  private let expectedSize: Int64?
  private let stateTemplate: ResumeState
  /// Bytes present in the partial file: the resumed prefix plus what arrived.
  public let progress: ProgressCounter

  /// The plan taken for the last response head.
  public private(set) var plan: ResponseValidation.Plan?
  /// The next write position: the partial file's length once the body is complete.
  public private(set) var offset: Int64
  /// Body bytes written in this exchange.
  public private(set) var written: Int64 = 0

  /// - Parameters:
  ///   - fd: the open partial file, already holding `requested.start` bytes (or none).
  ///   - hasher: already fed with the partial file's existing prefix.
  public init(
    fd: Int32, local: LocalDownload, hasher: SHA256, requested: ByteRange?,
    expectedSize: Int64?, state: ResumeState, progress: ProgressCounter
  ) {
    self.fd = fd
    self.local = local
    self.hasher = hasher
    self.requested = requested
    self.expectedSize = expectedSize
    self.stateTemplate = state
    self.progress = progress
    self.offset = requested?.start ?? 0
    progress.store(offset)
  }

  public func receive(head: ResponseHead) throws(TransferError) -> Bool {
    let plan = ResponseValidation.plan(
      for: head, requested: requested, expectedSize: expectedSize,
      knownTotal: requested == nil ? nil : stateTemplate.total)
    self.plan = plan
    switch plan {
    case .write(let offset, let total, let restart):
      if restart {
        guard ftruncate(fd, 0) == 0 else { throw FileErrors.error(errno, "cannot truncate") }
        hasher.reset()
      }
      self.offset = offset
      progress.store(offset)
      var state = stateTemplate
      state.validator = Validator.from(head)
      state.total = total
      try local.writeState(state)
      return true
    case .fail(let error):
      throw error
    case .complete, .restart, .discard:
      return false
    }
  }

  public func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    guard let base = body.baseAddress, !body.isEmpty else { return }
    if let expectedSize, offset + Int64(body.count) > expectedSize {
      throw TransferError(.sizeMismatch, "server sent more than the expected \(expectedSize) bytes")
    }
    var done = 0
    while done < body.count {
      let count = pwrite(fd, base + done, body.count - done, off_t(offset) + off_t(done))
      if count < 0 {
        if errno == EINTR { continue }
        throw FileErrors.error(errno, "cannot write \(local.path)")
      }
      done += count
    }
    hasher.update(body)
    offset += Int64(body.count)
    written += Int64(body.count)
    progress.add(moved: Int64(body.count))
    progress.store(offset)
  }
}

/// Transfers described in code, checked together as `Manifest.validate()` checks a
/// manifest's lines: no two transfers write the same file or send to the same target, and
/// each upload's file is a regular file under `outputDirectory`. Each transfer's own fields
/// were checked when it was built.
///
/// A `Sequence` of `ManifestEntry` for `Scheduler.run`: the entry of the transfer at
/// position N (1-based) is line N, which events and outcomes carry as `line`.
public struct TransferList: Sequence, Sendable {
  public typealias Element = ManifestEntry

  /// The transfers, in the order given.
  public let transfers: [Transfer]
  /// What the check learned: how many transfers, and the bytes their sizes add up to (for
  /// `SchedulerOptions.expectedTotal` and `expectedBytes`).
  public let statistics: ManifestStatistics
  private let entries: [ManifestEntry]

  /// - Parameters:
  ///   - outputDirectory: the directory the paths are relative to, as the scheduler's
  ///     `SchedulerOptions.outputDirectory`; uploads' files are looked up in it.
  ///   - refusesIPv6Literals: refuse a URL whose host is an IPv6 literal, for the URLSession
  ///     transport, which cannot reach one on Linux.
  /// - Throws: `InvalidTransfer` naming the first transfer that breaks a rule, with the
  ///   reason a manifest gives (`same destination as line 2`: lines are positions here).
  public init(
    _ transfers: [Transfer], outputDirectory: String, refusesIPv6Literals: Bool = false
  ) throws(InvalidTransfer) {
    let destinations = ManifestDestinations()
    var statistics = ManifestStatistics(entries: 0, knownBytes: 0, entriesWithoutSize: 0)
    var entries: [ManifestEntry] = []
    entries.reserveCapacity(transfers.count)
    for (index, transfer) in transfers.enumerated() {
      let position = index + 1
      if refusesIPv6Literals,
        let problem = Manifest.ipv6LiteralProblem(sources: [transfer.url] + transfer.mirrors)
      {
        throw InvalidTransfer(problem, position: position)
      }
      if transfer.operation == .upload,
        let problem = Manifest.uploadFileProblem(transfer.path, in: outputDirectory)
      {
        throw InvalidTransfer(problem, position: position)
      }
      let check = ManifestLineCheck(
        line: position, operation: transfer.operation, path: transfer.path,
        method: transfer.method, size: transfer.size, digests: transfer.digests,
        url: transfer.url)
      if let earlier = destinations.insert(check) {
        throw InvalidTransfer("same destination as line \(earlier)", position: position)
      }
      statistics.entries += 1
      if let size = transfer.size {
        let (sum, overflow) = statistics.knownBytes.addingReportingOverflow(size)
        statistics.knownBytes = overflow ? .max : sum
      } else {
        statistics.entriesWithoutSize += 1
      }
      entries.append(transfer.entry(line: position))
    }
    self.transfers = transfers
    self.statistics = statistics
    self.entries = entries
  }

  public func makeIterator() -> IndexingIterator<[ManifestEntry]> {
    entries.makeIterator()
  }

  /// The number of transfers.
  public var underestimatedCount: Int { entries.count }
}

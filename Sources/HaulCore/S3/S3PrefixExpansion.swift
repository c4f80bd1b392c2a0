import Foundation

/// The scheduler's feeder's source of entries when `--s3` prefixes may be listed: passes
/// every entry of `base` on, and lists a prefix entry (`S3PrefixListing.isFirstPage`) one
/// `ListObjectsV2` page at a time as the feeder pulls, so no more than one page (at most
/// 1,000 objects) is held in memory however large the prefix.
///
/// A page is requested only when the previous one has been handed to the feeder, and the
/// feeder pauses while its lookahead is full: listing keeps pace with the transfers. Pages
/// are fetched through `EntryRunner.send`, the path every transfer takes, so they are
/// signed by the same interceptor and follow the same redirect rules; they hold no slot. A
/// page that fails with a transient error is asked for again under the run's retry policy;
/// a listing that fails for good ends the prefix's manifest line with that error (the
/// objects already listed go on).
///
/// Not thread-safe: the feeder alone pulls.
struct S3PrefixExpansion<Base: IteratorProtocol<ManifestEntry>> {
  /// What the feeder gets.
  enum Item: Sendable {
    /// An entry to run.
    case entry(ManifestEntry)
    /// An entry that ended before any transfer, with its error: a failed listing (the
    /// prefix's own line) or a refused key.
    case ended(ManifestEntry, TransferError)
  }

  private var base: Base
  private let listing: S3PrefixListing?
  private let runner: EntryRunner
  /// The prefix being listed and the token of its next page (`nil`: the first).
  private var listed: (entry: ManifestEntry, token: String?)?
  /// The current page's items, handed out from `next`.
  private var page: [S3PrefixListing.Item] = []
  private var next = 0

  init(_ base: Base, listing: S3PrefixListing?, runner: EntryRunner) {
    self.base = base
    self.listing = listing
    self.runner = runner
  }

  /// Whether the next pull asks the server for a listing page.
  var waitsForPage: Bool { next >= page.count && listed != nil }

  /// The next entry to feed, `nil` when every entry and every page has been handed out.
  mutating func nextItem() async -> Item? {
    while true {
      if next < page.count {
        defer { next += 1 }
        switch page[next] {
        case .entry(let entry): return .entry(entry)
        case .refused(let entry, let error): return .ended(entry, error)
        }
      }
      page.removeAll(keepingCapacity: true)
      next = 0
      if let (entry, token) = listed, let listing {
        switch await fetch(listing, entry, after: token) {
        case .success(let fetched):
          listed = fetched.nextToken.map { (entry, $0) }
          page = listing.items(of: fetched, for: entry)
        case .failure(let error):
          listed = nil
          return .ended(entry, error)
        }
        continue
      }
      guard let entry = base.next() else { return nil }
      guard listing != nil, S3PrefixListing.isFirstPage(entry.url) else { return .entry(entry) }
      listed = (entry, nil)
    }
  }

  /// One page, retried under the run's policy while its failure is transient.
  private func fetch(_ listing: S3PrefixListing, _ entry: ManifestEntry, after token: String?)
    async -> Result<S3ListPage, TransferError>
  {
    var loop = AttemptLoop(sources: 1, policy: runner.retryPolicy)
    loop.begin()
    while true {
      if Task.isCancelled { return .failure(Scheduler.cancelledError) }
      let failure: AttemptFailure
      switch await fetchOnce(listing.page(entry.url, after: token), for: entry) {
      case .success(let page): return .success(page)
      case .failure(let value): failure = value
      }
      guard !Task.isCancelled,
        case .attempt(_, _, let delay) = loop.failed(
          failure.error.code, transient: failure.transient, retryAfter: failure.retryAfter,
          excused: false, jitter: Double.random(in: 0..<1))
      else { return .failure(Task.isCancelled ? Scheduler.cancelledError : failure.error) }
      do {
        try await Task.sleep(for: .seconds(delay))
      } catch {
        return .failure(Scheduler.cancelledError)
      }
    }
  }

  private func fetchOnce(_ url: URL, for entry: ManifestEntry) async
    -> Result<S3ListPage, AttemptFailure>
  {
    let options = runner.options
    let request = TransferRequest(
      url: url, method: "GET", headers: options.headers + entry.headers,
      stallTimeout: options.stallTimeout, connectTimeout: min(options.stallTimeout, 30))
    let sink = S3AnswerSink()
    let response: TransferResponse
    do throws(TransferError) {
      response = try await runner.send(request, for: entry, sink: sink)
    } catch {
      return .failure(AttemptFailure(error: error))
    }
    guard (200..<300).contains(response.head.status) else {
      return .failure(AttemptFailure.http(response.head, body: sink.errorBody))
    }
    guard let page = S3ListPage.parse(sink.body) else {
      return .failure(
        AttemptFailure(
          error: TransferError(.protocol, "the listing of the prefix is not a ListObjectsV2 page")))
    }
    return .success(page)
  }
}

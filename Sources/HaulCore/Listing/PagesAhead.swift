import Synchronization

/// The first pages of waiting folders that `ListingExpansion` asked for ahead of their turn,
/// by folder URL, each a task of its own.
///
/// They are unstructured tasks (the expansion is an iterator, with no scope to start child
/// tasks in), so they do not see the feeder's cancellation by themselves: the expansion calls
/// `cancelAll()` when the feeder is cancelled, which cancels every page asked for and every
/// page asked for after it, so that a run stopped mid-tree sends no further listing request
/// and ends the ones under way.
final class PagesAhead: Sendable {
  /// A first page asked for ahead.
  typealias Page = Task<Result<ListingPage, TransferError>, Never>

  private let state = Mutex<(pages: [String: Page], cancelled: Bool)>(([:], false))

  /// Whether the page of `key` is asked for and not yet taken.
  func holds(_ key: String) -> Bool {
    state.withLock { $0.pages[key] != nil }
  }

  /// Keeps `page` as `key`'s; cancels it at once when `cancelAll()` came first.
  func keep(_ page: Page, for key: String) {
    let late = state.withLock { state in
      state.pages[key] = page
      return state.cancelled
    }
    if late { page.cancel() }
  }

  /// The page of `key` once read, then no longer held here; `nil` when it was not asked for.
  /// It stays held while it is awaited, so that `cancelAll()` reaches it too.
  func take(_ key: String) async -> Result<ListingPage, TransferError>? {
    guard let page = state.withLock({ $0.pages[key] }) else { return nil }
    let read = await page.value
    state.withLock { _ = $0.pages.removeValue(forKey: key) }
    return read
  }

  /// Cancels every page held, and every page kept from now on.
  func cancelAll() {
    let pages = state.withLock { state in
      state.cancelled = true
      return Array(state.pages.values)
    }
    for page in pages { page.cancel() }
  }
}

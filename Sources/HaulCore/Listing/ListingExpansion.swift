import Foundation

/// The scheduler's feeder's source of entries: passes every entry of `base` on, and expands
/// an entry a lister takes (`FolderLister.lists`) into the files its tree holds, one
/// listing page at a time as the feeder pulls.
///
/// Only one page is held at once, and a page is requested only when the previous one has
/// been handed to the feeder, which pauses while its lookahead is full: listing keeps pace
/// with the transfers. What grows with the tree is the folders still to list (and the
/// folders listed, kept so that none is listed twice), never the files listed. A folder
/// that cannot be listed ends as a transfer of its own (its URL, its local folder as the
/// path) and the rest of the tree goes on. What each page adds (entries, sizes) is counted
/// in the run's `ListingTally` as the page is listed, so that the progress totals grow with
/// the listing, whichever lister it is.
///
/// The first pages of the next `pagesAhead` folders waiting to be listed are asked for ahead,
/// while the current page is handed out, so that a tree of many small folders is not listed
/// one round trip at a time; they are still taken in order, so what is handed out and how
/// loops are found do not change, and at most `pagesAhead` pages more are held. Once the
/// feeder's task is cancelled (the run stops mid-tree), the pages asked for ahead are
/// cancelled with it (`PagesAhead`), no page is asked for any more, and each folder still
/// waiting ends as a transfer failed with `cancelled`.
///
/// Not thread-safe: the feeder alone pulls.
struct ListingExpansion<Base: IteratorProtocol<ManifestEntry>> {
  typealias Item = ListingItem

  /// How many waiting folders' first pages are asked for ahead of their turn.
  static var pagesAhead: Int { 8 }

  /// The tree being listed.
  private struct Walk {
    let entry: ManifestEntry
    let lister: any FolderLister
    let root: ListedFolder
    /// Folders still to list, the next one last, each with the fingerprints of its
    /// ancestors' listings (`ListingPage.fingerprint`).
    var pending: [(folder: ListedFolder, ancestors: [Int])]
    /// Every folder taken into `pending` so far, by URL.
    var seen: Set<String>
    /// The folder whose next page comes before any pending folder, and that page's cursor.
    var continuation: (folder: ListedFolder, cursor: String)?
    /// The ancestors' fingerprints of the folder being listed.
    var ancestors: [Int] = []
  }

  private var base: Base
  private let listers: [any FolderLister]
  private let folders: FolderOptions
  private let runner: EntryRunner
  private var walk: Walk?
  /// The first pages of waiting folders asked for ahead.
  private let ahead = PagesAhead()
  /// The current page's items not handed out yet, the next one last: each is moved out
  /// (`popLast`) rather than copied, as a page of skipped files is handed out item by item.
  private var page: [Item] = []

  init(_ base: Base, listers: [any FolderLister], folders: FolderOptions, runner: EntryRunner) {
    self.base = base
    self.listers = listers
    self.folders = folders
    self.runner = runner
  }

  /// Whether the next pull asks the server for a listing page.
  var waitsForPage: Bool { page.isEmpty && walk != nil }

  /// The current page's next item, taken without a call to `nextItem()`: what it would
  /// return first. The feeder takes a page's items so, one function call each instead of
  /// an asynchronous one.
  mutating func nextOnPage() -> Item? { page.popLast() }

  /// The next entry to feed, `nil` when every entry and every page has been handed out.
  mutating func nextItem() async -> Item? {
    while true {
      if let item = page.popLast() { return item }
      if var current = walk {
        walk = nil
        await withTaskCancellationHandler {
          await list(&current)
        } onCancel: { [ahead] in
          ahead.cancelAll()
        }
        page.reverse()
        if current.continuation != nil || !current.pending.isEmpty { walk = current }
        continue
      }
      guard let entry = base.next() else { return nil }
      guard let lister = listers.first(where: { $0.lists(entry) }) else { return .entry(entry) }
      runner.state.listing.taken(size: entry.size)
      let root = ListedFolder(url: entry.url, relativePath: "", depth: 1)
      walk = Walk(
        entry: entry, lister: lister, root: root, pending: [(root, [])],
        seen: [root.url.absoluteString], continuation: nil)
    }
  }

  /// Lists the next page of `walk` into `page`.
  private mutating func list(_ walk: inout Walk) async {
    let folder: ListedFolder
    let cursor: String?
    if let (continued, token) = walk.continuation {
      (folder, cursor) = (continued, token)
      walk.continuation = nil
    } else if let pending = walk.pending.popLast() {
      (folder, cursor) = (pending.folder, nil)
      walk.ancestors = pending.ancestors
    } else {
      return
    }
    let answer: Result<ListingPage, TransferError>
    if cursor == nil, let asked = await ahead.take(folder.url.absoluteString) {
      answer = asked
    } else if Task.isCancelled {
      answer = .failure(Scheduler.cancelledError)
    } else {
      answer = await walk.lister.result(
        of: folder, after: cursor, through: ListingClient(runner: runner, entry: walk.entry))
    }
    defer { askAhead(&walk) }
    let listed: ListingPage
    switch answer {
    case .success(let value): listed = value
    case .failure(let error):
      page.append(.ended(ListingItem.folderEntry(folder, of: walk.entry), error))
      runner.state.listing.add(page[page.count - 1])
      return
    }
    walk.continuation = listed.next.map { (folder, $0) }
    // A folder listed whole in one page exactly as one of its ancestors is a link back to
    // it (a server-side symlink loop): its files are that ancestor's, and its subfolders
    // lead round again.
    var ancestors = walk.ancestors
    if cursor == nil, listed.next == nil, !listed.folders.isEmpty || !listed.files.isEmpty {
      let fingerprint = listed.fingerprint(below: folder)
      if ancestors.contains(fingerprint) { return }
      ancestors.append(fingerprint)
    }
    let rootURL = walk.root.url.absoluteString
    // Taken in the order named (a folder named twice counts where it is first named), then
    // pushed in reverse so that the first one named is listed first.
    let start = walk.pending.count
    for child in listed.folders where child.depth <= folders.depth {
      let key = child.url.absoluteString
      guard key.hasPrefix(rootURL), walk.seen.insert(key).inserted else { continue }
      walk.pending.append((child, ancestors))
    }
    walk.pending[start...].reverse()
    page.reserveCapacity(listed.files.count)
    let runner = runner
    let inPlace = { (path: String, size: Int64?, listedModified: Int?) in
      runner.listedFileInPlace(path, size: size, listedModified: listedModified)
    }
    // By index: each file is lent to `ListingItem`, not copied out with all its strings.
    for index in listed.files.indices {
      guard
        let item = ListingItem(
          listed.files[index], of: walk.entry, folders: folders, inPlace: inPlace)
      else { continue }
      runner.state.listing.add(item)
      page.append(consume item)
    }
  }

  /// Asks for the first pages of the next `pagesAhead` waiting folders (the last ones of
  /// `pending`) that are not asked for yet; none while a folder's next page comes first.
  private func askAhead(_ walk: inout Walk) {
    guard walk.continuation == nil, !Task.isCancelled else { return }
    for (folder, _) in walk.pending.suffix(Self.pagesAhead).reversed() {
      let key = folder.url.absoluteString
      guard !ahead.holds(key) else { continue }
      let (lister, client) = (walk.lister, ListingClient(runner: runner, entry: walk.entry))
      ahead.keep(Task { await lister.result(of: folder, after: nil, through: client) }, for: key)
    }
  }
}

extension FolderLister {
  /// `page(of:after:through:)` as a result.
  fileprivate func result(
    of folder: ListedFolder, after cursor: String?, through client: ListingClient
  ) async -> Result<ListingPage, TransferError> {
    do throws(TransferError) {
      return .success(try await page(of: folder, after: cursor, through: client))
    } catch {
      return .failure(error)
    }
  }
}

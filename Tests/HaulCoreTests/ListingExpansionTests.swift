import Foundation
import HaulTestSupport
import Synchronization
import Testing

@testable import HaulCore

/// A lister that answers from a fixed tree and records each page it is asked for: the
/// expansion's walk without a server.
final class FakeLister: FolderLister {
  /// The pages of each folder URL, in order: page N + 1 is asked for with the cursor "N".
  let tree: [String: [ListingPage]]
  /// The folders that fail, with their error.
  let failing: [String: TransferError]
  /// Each page asked for, as `URL#cursor` (`URL` alone for a first page).
  let asked = Mutex<[String]>([])

  init(_ tree: [String: [ListingPage]], failing: [String: TransferError] = [:]) {
    self.tree = tree
    self.failing = failing
  }

  func lists(_ entry: ManifestEntry) -> Bool { entry.recursive }

  func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
  {
    let key = folder.url.absoluteString
    asked.withLock { $0.append(key + (cursor.map { "#" + $0 } ?? "")) }
    if let error = failing[key] { throw error }
    let pages = tree[key] ?? [ListingPage()]
    let index = cursor.flatMap { Int($0) } ?? 0
    var page = pages[index]
    page.next = index + 1 < pages.count ? String(index + 1) : nil
    return page
  }
}

/// A lister whose root names `count` subfolders and whose subfolders' pages wait until
/// `open()`, or until their own task is cancelled: a page that ends cancelled throws
/// `cancelled` and counts in `cancelled`, one let through names one file.
final class GatedLister: FolderLister {
  let count: Int
  /// Each page asked for, by folder URL.
  let asked = Mutex<[String]>([])
  let cancelled = Atomic<Int>(0)
  private let gate = Mutex<
    (open: Bool, waiting: [String: CheckedContinuation<Void, Never>], ended: Set<String>)
  >((false, [:], []))

  init(count: Int) {
    self.count = count
  }

  func lists(_ entry: ManifestEntry) -> Bool { entry.recursive }

  func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
  {
    let key = folder.url.absoluteString
    asked.withLock { $0.append(key) }
    if folder.relativePath.isEmpty {
      return ListingPage(folders: (0..<count).map { ListingExpansionTests.folder("d\($0)/") })
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let now = gate.withLock { gate in
          if gate.open || gate.ended.contains(key) { return true }
          gate.waiting[key] = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      let waiting = gate.withLock { gate in
        gate.ended.insert(key)
        return gate.waiting.removeValue(forKey: key)
      }
      waiting?.resume()
    }
    if Task.isCancelled {
      cancelled.add(1, ordering: .relaxed)
      throw Scheduler.cancelledError
    }
    return ListingPage(files: [ListingExpansionTests.file(folder.relativePath + "f")])
  }

  /// Lets every page waiting, and every page asked for from now on, through.
  func open() {
    let waiting = gate.withLock { gate in
      gate.open = true
      defer { gate.waiting.removeAll() }
      return Array(gate.waiting.values)
    }
    for continuation in waiting { continuation.resume() }
  }
}

@Suite("ListingExpansion: a folder entry walked through a fake lister")
final class ListingExpansionTests {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("haul-expansion-\(UUID().uuidString)").path

  init() throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  static let root = "http://h/tree/"

  /// The folder at `path` below the root (`""` for the root, else `a/` or `a/b/`).
  static func folder(_ path: String) -> ListedFolder {
    ListedFolder(
      url: URL(string: root + path)!, relativePath: path,
      depth: path.split(separator: "/").count + 1)
  }

  /// The file `path` below the root.
  static func file(_ path: String, size: Int64? = nil) -> ListedFile {
    let url = URL(string: root + path)
    return ListedFile(
      url: url, source: url?.absoluteString ?? root + path, relativePath: path, size: size)
  }

  static func entry(_ line: Int, _ url: String, recursive: Bool, path: String) -> ManifestEntry {
    ManifestEntry(
      line: line, text: "{\"url\":\"\(url)\"}", url: URL(string: url)!, path: path,
      recursive: recursive)
  }

  /// Every item the expansion hands out for `entries`, with the pages asked for before
  /// each item was handed out; `handedOut` sees the run after each item.
  func expand(
    _ entries: [ManifestEntry], with lister: FakeLister, depth: Int = 32,
    filter: PathFilter = PathFilter(), handedOut: (EntryRunner) -> Void = { _ in }
  ) async throws -> (items: [ListingItem], askedBefore: [Int]) {
    let runner = try makeRunner()
    var expansion = ListingExpansion(
      entries.makeIterator(), listers: [lister],
      folders: FolderOptions(depth: depth, filter: filter), runner: runner)
    var items: [ListingItem] = []
    var askedBefore: [Int] = []
    while let item = await expansion.nextItem() {
      items.append(item)
      askedBefore.append(lister.asked.withLock { $0.count })
      handedOut(runner)
    }
    return (items, askedBefore)
  }

  /// A run's runner over `directory`, whose transport answers 500 to everything.
  func makeRunner() throws -> EntryRunner {
    let scheduler = Scheduler(
      transport: ScriptedTransport { _, _ in .init(status: 500) },
      options: SchedulerOptions(outputDirectory: directory))
    return EntryRunner(
      scheduler: scheduler, directory: try OutputDirectory(path: directory),
      events: SerializedEventHandler { _ in })
  }

  /// The items' paths, a failed or refused one with its error code after a space.
  static func paths(_ items: [ListingItem]) -> [String] {
    items.map {
      switch $0 {
      case .entry(let entry): entry.path
      case .ended(let entry, let error): entry.path + " " + error.code.description
      case .skipped(let ending): ending.outcome.path + " skipped"
      }
    }
  }

  @Test func folders_are_listed_depth_first_in_the_order_named_each_once() async throws {
    // Given a tree whose folders name a sibling twice and link back to the root
    let lister = FakeLister([
      Self.root: [
        ListingPage(
          files: [Self.file("top.txt", size: 3)],
          folders: [Self.folder("a/"), Self.folder("b/"), Self.folder("a/")])
      ],
      Self.root + "a/": [
        ListingPage(
          files: [Self.file("a/one.txt")],
          folders: [
            Self.folder("a/deep/"),
            ListedFolder(url: URL(string: Self.root)!, relativePath: "a/up/", depth: 3),
          ])
      ],
      Self.root + "a/deep/": [ListingPage(files: [Self.file("a/deep/two.txt")])],
      Self.root + "b/": [ListingPage(files: [Self.file("b/three.txt")])],
    ])
    // When the folder entry is expanded between two plain entries
    let (items, _) = try await expand(
      [
        Self.entry(1, "http://h/before", recursive: false, path: "before"),
        Self.entry(2, Self.root, recursive: true, path: "out/"),
        Self.entry(3, "http://h/after", recursive: false, path: "after"),
      ], with: lister)
    // Then each folder is asked for once (b/ ahead of its turn, while a/ is handed out)
    let asked = lister.asked.withLock { $0 }
    #expect(asked.count == 4)
    #expect(
      Set(asked) == [Self.root, Self.root + "a/", Self.root + "a/deep/", Self.root + "b/"])
    #expect(asked.first == Self.root)
    // And a subfolder's tree is handed out before the next sibling
    #expect(
      Self.paths(items) == [
        "before", "out/top.txt", "out/a/one.txt", "out/a/deep/two.txt", "out/b/three.txt",
        "after",
      ])
    // And each listed file is a download of the folder entry's line with the listed size
    guard case .entry(let top) = items[1] else { throw Expected.entry }
    #expect(top.line == 2)
    #expect(top.url.absoluteString == Self.root + "top.txt")
    #expect(top.size == 3)
    #expect(top.text == #"{"url":"http://h/tree/top.txt","path":"out/top.txt","size":3}"#)
  }

  @Test func a_folders_next_page_comes_before_its_subfolders_and_pages_are_asked_lazily()
    async throws
  {
    // Given a root listed in three pages, the first naming a subfolder
    let lister = FakeLister([
      Self.root: [
        ListingPage(files: [Self.file("1"), Self.file("2")], folders: [Self.folder("sub/")]),
        ListingPage(files: [Self.file("3")]),
        ListingPage(files: [Self.file("4")]),
      ],
      Self.root + "sub/": [ListingPage(files: [Self.file("sub/5")])],
    ])
    // When it is expanded
    let (items, askedBefore) = try await expand(
      [Self.entry(1, Self.root, recursive: true, path: "")], with: lister)
    // Then the pages come in order, then the subfolder
    #expect(Self.paths(items) == ["1", "2", "3", "4", "sub/5"])
    #expect(
      lister.asked.withLock { $0 } == [
        Self.root, Self.root + "#1", Self.root + "#2", Self.root + "sub/",
      ])
    // And a page is asked for only once the previous page's files are handed out
    #expect(askedBefore == [1, 1, 2, 3, 4])
  }

  @Test func depth_bounds_the_folders_listed_and_the_files_of_a_flat_listing() async throws {
    // Given a tree three levels deep, whose root also lists a file two folders down
    let lister = FakeLister([
      Self.root: [
        ListingPage(
          files: [Self.file("top"), Self.file("x/y/flat")], folders: [Self.folder("x/")])
      ],
      Self.root + "x/": [ListingPage(files: [Self.file("x/mid")], folders: [Self.folder("x/y/")])],
      Self.root + "x/y/": [ListingPage(files: [Self.file("x/y/low")])],
    ])
    // When it is expanded with --depth 2
    let (items, _) = try await expand(
      [Self.entry(1, Self.root, recursive: true, path: "")], with: lister, depth: 2)
    // Then the third level is neither listed nor taken from the flat listing
    #expect(Self.paths(items) == ["top", "x/mid"])
    #expect(lister.asked.withLock { $0 } == [Self.root, Self.root + "x/"])
  }

  @Test func a_folder_that_fails_ends_as_its_own_entry_and_the_rest_goes_on() async throws {
    // Given a tree with a subfolder whose listing fails
    let lister = FakeLister(
      [
        Self.root: [
          ListingPage(
            files: [Self.file("top")], folders: [Self.folder("bad/"), Self.folder("ok/")])
        ],
        Self.root + "ok/": [ListingPage(files: [Self.file("ok/file")])],
      ], failing: [Self.root + "bad/": TransferError(.http(403), "forbidden")])
    // When it is expanded
    let (items, _) = try await expand(
      [Self.entry(7, Self.root, recursive: true, path: "out/")], with: lister)
    // Then the failed folder is one ended entry (its URL, its local folder, a line that
    // lists it again) and its sibling is listed
    #expect(Self.paths(items) == ["out/top", "out/bad/ http_403", "out/ok/file"])
    guard case .ended(let failed, _) = items[1] else { throw Expected.ended }
    #expect(failed.line == 7)
    #expect(failed.url.absoluteString == Self.root + "bad/")
    #expect(failed.text == #"{"url":"http://h/tree/bad/","path":"out/bad/","recursive":true}"#)
  }

  @Test func each_listed_page_adds_its_files_and_sizes_to_the_progress_totals() async throws {
    // Given a plain entry and a folder entry, as the manifest counts them (two entries, no
    // size known), whose root is listed in two pages and whose subfolder fails
    let lister = FakeLister(
      [
        Self.root: [
          ListingPage(
            files: [Self.file("a", size: 10), Self.file("b", size: 20)],
            folders: [Self.folder("bad/")]),
          ListingPage(files: [Self.file("c")]),
        ]
      ], failing: [Self.root + "bad/": TransferError(.http(403), "forbidden")])
    var totals: [[Int64]] = []
    // When it is expanded, the run's progress seen after each item handed out
    let (items, _) = try await expand(
      [
        Self.entry(1, "http://h/before", recursive: false, path: "before"),
        Self.entry(2, Self.root, recursive: true, path: "out/"),
      ], with: lister
    ) { runner in
      let snapshot = runner.state.snapshot(expectedTotal: 2, expectedBytes: nil)
      totals.append([
        Int64(snapshot.total), snapshot.listedBytes, Int64(snapshot.listedWithoutSize),
      ])
    }
    // Then each page's files take the folder entry's place in the total as the page is
    // listed, with the sizes it gives; a folder that fails counts as the entry it ends as
    #expect(Self.paths(items) == ["before", "out/a", "out/b", "out/c", "out/bad/ http_403"])
    #expect(totals == [[2, 0, 0], [3, 30, -1], [3, 30, -1], [4, 30, 0], [5, 30, 1]])
  }

  @Test func a_taken_line_with_a_size_counts_that_size_once() async throws {
    // Given a line that gives its size (30), taken by a lister that names one file of that
    // size in its place, as an hf:// file line is
    var entry = Self.entry(1, Self.root, recursive: true, path: "out/")
    entry.size = 30
    let lister = FakeLister([Self.root: [ListingPage(files: [Self.file("a", size: 30)])]])
    var totals: [[Int64]] = []
    // When it is expanded, the run's progress seen after the item is handed out
    let (items, _) = try await expand([entry], with: lister) { runner in
      let snapshot = runner.state.snapshot(expectedTotal: 1, expectedBytes: 30)
      totals.append([
        Int64(snapshot.total), snapshot.listedBytes, Int64(snapshot.listedWithoutSize),
      ])
    }
    // Then the file takes the line's place: one entry, its 30 bytes counted once (by the
    // manifest's statistics), nothing added as unsized
    #expect(Self.paths(items) == ["out/a"])
    #expect(totals == [[1, 0, 0]])
  }

  @Test func a_root_that_fails_ends_as_the_entry_itself() async throws {
    let entry = Self.entry(1, Self.root, recursive: true, path: "out/")
    let lister = FakeLister([:], failing: [Self.root: TransferError(.connection, "refused")])
    let (items, _) = try await expand([entry], with: lister)
    guard case .ended(let ended, let error) = try #require(items.first), items.count == 1 else {
      throw Expected.ended
    }
    #expect(ended == entry)
    #expect(error.code == .connection)
  }

  @Test func a_folder_listed_exactly_as_an_ancestor_is_a_loop_and_not_followed() async throws {
    // Given a subfolder `loop/` that lists what the root lists (a symlink to `.`), under
    // its own URLs
    let lister = FakeLister([
      Self.root: [ListingPage(files: [Self.file("f")], folders: [Self.folder("loop/")])],
      Self.root + "loop/": [
        ListingPage(files: [Self.file("loop/f")], folders: [Self.folder("loop/loop/")])
      ],
    ])
    // When it is expanded
    let (items, _) = try await expand(
      [Self.entry(1, Self.root, recursive: true, path: "")], with: lister)
    // Then the loop's copy of the files is left out and it is not followed further
    #expect(Self.paths(items) == ["f"])
    #expect(lister.asked.withLock { $0 } == [Self.root, Self.root + "loop/"])
  }

  @Test func folders_outside_the_start_folder_are_never_listed() async throws {
    let elsewhere = ListedFolder(
      url: URL(string: "http://h/other/")!, relativePath: "other/", depth: 2)
    let lister = FakeLister([
      Self.root: [ListingPage(files: [Self.file("f")], folders: [elsewhere])]
    ])
    let (items, _) = try await expand(
      [Self.entry(1, Self.root, recursive: true, path: "")], with: lister)
    #expect(Self.paths(items) == ["f"])
    #expect(lister.asked.withLock { $0 } == [Self.root])
  }

  @Test func names_that_would_leave_the_folder_are_refused_and_filters_select_files() async throws {
    // Given a listing with a `..` name, a name without a URL and files of two kinds
    let lister = FakeLister([
      Self.root: [
        ListingPage(files: [
          Self.file("keep.bin"), Self.file("drop.txt"), Self.file("../escape.bin"),
          ListedFile(url: nil, source: Self.root + "bad.bin", relativePath: "bad.bin"),
        ])
      ]
    ])
    // When it is expanded with --exclude '*.txt'
    let (items, _) = try await expand(
      [Self.entry(1, Self.root, recursive: true, path: "out/")], with: lister,
      filter: PathFilter(exclude: [try PathGlob("*.txt")]))
    // Then the filtered file is left out and the two bad names are refused
    #expect(
      Self.paths(items) == [
        "out/keep.bin", "out/../escape.bin path_refused", "out/bad.bin path_refused",
      ])
  }

  @Test func a_listed_file_complete_in_place_is_skipped_as_it_is_listed() async throws {
    // Given files in place from an earlier run: a.bin of its listed size, b.bin shorter
    // than listed, c.txt listed without a size, and in sub/ d.txt without a size beside
    // another file's pending partial
    let out = directory + "/out"
    try FileManager.default.createDirectory(
      atPath: out + "/sub", withIntermediateDirectories: true)
    for (path, bytes) in [
      ("a.bin", 3), ("b.bin", 3), ("c.txt", 4), ("sub/d.txt", 2), ("sub/e.txt.haul-partial", 1),
    ] {
      #expect(
        FileManager.default.createFile(atPath: out + "/" + path, contents: Data(count: bytes)))
    }
    let lister = FakeLister([
      Self.root: [
        ListingPage(
          files: [
            ListedFile(urlText: Self.root + "a.bin", relativePath: "a.bin", size: 3),
            ListedFile(urlText: Self.root + "b.bin", relativePath: "b.bin", size: 5),
            ListedFile(urlText: Self.root + "c.txt", relativePath: "c.txt"),
          ], folders: [Self.folder("sub/")])
      ],
      Self.root + "sub/": [
        ListingPage(files: [ListedFile(urlText: Self.root + "sub/d.txt", relativePath: "sub/d.txt")]
        )
      ],
    ])
    // When the folder is expanded
    let (items, _) = try await expand(
      [Self.entry(4, Self.root, recursive: true, path: "out/")], with: lister)
    // Then the complete files end skipped as they are listed, with the line and URL the
    // report gives, and the others run as entries: the short one, and the one whose folder
    // holds a partial (its admission looks for the file's own)
    #expect(
      Self.paths(items) == ["out/a.bin skipped", "out/b.bin", "out/c.txt skipped", "out/sub/d.txt"])
    guard case .skipped(let ending) = items[0] else { throw Expected.ended }
    #expect(ending.outcome.line == 4)
    #expect(ending.outcome.url == Self.root + "a.bin")
    #expect(ending.outcome.text == #"{"url":"http://h/tree/a.bin","path":"out/a.bin","size":3}"#)
    // The line, written only when read, equals and hashes as the same line kept as text
    var verbatim = ending.outcome
    verbatim.text = ending.outcome.text
    #expect(verbatim == ending.outcome && verbatim.hashValue == ending.outcome.hashValue)
    verbatim.text += " "
    #expect(verbatim != ending.outcome)
    #expect(ending.completedBytes == 3 && ending.sizeInManifest)
    guard case .entry(let entry) = items[1] else { throw Expected.entry }
    #expect(entry.url.absoluteString == Self.root + "b.bin")
  }

  @Test(.timeLimit(.minutes(1)))
  func a_walk_stopped_mid_tree_cancels_the_pages_asked_ahead_and_asks_no_more() async throws {
    // Given a root naming 20 subfolders, whose pages wait until they are let through
    let lister = GatedLister(count: 20)
    let runner = try makeRunner()
    let entry = Self.entry(1, Self.root, recursive: true, path: "out/")
    let walk = Task {
      var expansion = ListingExpansion(
        [entry].makeIterator(), listers: [lister], folders: FolderOptions(), runner: runner)
      var items: [ListingItem] = []
      while let item = await expansion.nextItem() { items.append(item) }
      return items
    }
    let ahead = ListingExpansion<IndexingIterator<[ManifestEntry]>>.pagesAhead
    while lister.asked.withLock({ $0.count }) < 1 + ahead {
      try await Task.sleep(for: .milliseconds(5))
    }
    // When the walk is cancelled while the first folders' pages are asked for ahead, and
    // the pages are let through after that
    walk.cancel()
    lister.open()
    let items = await walk.value
    // Then every page asked for ahead ended cancelled, none was asked for after the
    // cancellation, and every subfolder ends as a transfer failed with `cancelled`
    #expect(lister.cancelled.load(ordering: .relaxed) == ahead)
    #expect(lister.asked.withLock { $0.count } == 1 + ahead)
    #expect(Self.paths(items) == (0..<20).map { "out/d\($0)/ cancelled" })
  }

  enum Expected: Error {
    case entry, ended
  }
}

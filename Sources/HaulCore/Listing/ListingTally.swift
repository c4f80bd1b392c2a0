import Synchronization

/// What the folder listings have added to the run so far, for the progress totals: the
/// entries they named, the sizes they gave, and the manifest entries whose place those took.
///
/// A folder entry counts as one entry without a size in the manifest's statistics, a
/// single-file line a lister takes (an `hf://` file) as one with the `size` its line gives;
/// once it is listed, what it names (and each of its folders that could not be listed)
/// counts instead, as each page is handed to the feeder. The feeder writes, the progress sampler
/// reads; each counter is an atomic of its own, so a snapshot may see a page half counted.
final class ListingTally: Sendable {
  private let entries = Atomic<Int>(0)
  private let taken = Atomic<Int>(0)
  private let takenUnsized = Atomic<Int>(0)
  private let unsized = Atomic<Int>(0)
  private let bytes = Atomic<Int64>(0)
  private let takenBytes = Atomic<Int64>(0)

  /// A manifest entry whose line gives `size` (or none) is being listed: what it lists
  /// takes its place.
  func taken(size: Int64?) {
    taken.add(1, ordering: .relaxed)
    if let size {
      takenBytes.add(size, ordering: .relaxed)
    } else {
      takenUnsized.add(1, ordering: .relaxed)
    }
  }

  /// The listing handed out `item` (a file to fetch, a refused name, a folder that failed).
  func add(_ item: ListingItem) {
    let size: Int64?
    switch item {
    case .entry(let entry): size = entry.size
    case .ended(let entry, _): size = entry.size
    case .skipped(let ending): size = ending.sizeInManifest ? ending.completedBytes : nil
    }
    entries.add(1, ordering: .relaxed)
    if let size {
      bytes.add(size, ordering: .relaxed)
    } else {
      unsized.add(1, ordering: .relaxed)
    }
  }

  /// How many entries the listings added, less the manifest entries they replaced.
  var addedEntries: Int {
    entries.load(ordering: .relaxed) - taken.load(ordering: .relaxed)
  }

  /// The entries without a size the listings added, less the manifest entries without one
  /// they replaced.
  var addedWithoutSize: Int {
    unsized.load(ordering: .relaxed) - takenUnsized.load(ordering: .relaxed)
  }

  /// The sizes the listings gave, less those of the manifest entries they replaced.
  var listedBytes: Int64 { bytes.load(ordering: .relaxed) - takenBytes.load(ordering: .relaxed) }
}

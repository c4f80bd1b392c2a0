import HaulCore

/// The entries a run transfers: every entry of the manifest, or with `--shard K/N` only
/// those whose destination hashes into shard K (`Shard.contains`).
///
/// The manifest is validated in full before this is used, whatever the shard: a bad line
/// anywhere stops every shard alike. Entries are parsed lazily as the scheduler pulls them,
/// so a shard holds no more in memory than a whole run does; a line that turned bad since
/// (the file changed during the run) ends them, and `failure` says which.
struct RunEntries: Sequence, Sendable {
  let entries: ManifestEntries
  let shard: Shard?

  /// Why the entries ended before the manifest's end, if they did.
  var failure: ManifestError? { entries.failure }

  func makeIterator() -> Iterator {
    Iterator(base: entries.makeIterator(), shard: shard)
  }

  /// Pulls the manifest's entries and passes on those of the shard.
  struct Iterator: IteratorProtocol {
    var base: AnyIterator<ManifestEntry>
    let shard: Shard?

    mutating func next() -> ManifestEntry? {
      while let entry = base.next() {
        if shard?.contains(entry) ?? true { return entry }
      }
      return nil
    }
  }

  /// The shard's share of `whole` (the statistics of validating the whole manifest): the
  /// same when there is no shard, else counted in one more streaming pass over the manifest.
  func statistics(whole: ManifestStatistics) -> ManifestStatistics {
    guard shard != nil else { return whole }
    var counted = ManifestStatistics(entries: 0, knownBytes: 0, entriesWithoutSize: 0)
    for entry in self {
      counted.entries += 1
      if let size = entry.size {
        let (sum, overflow) = counted.knownBytes.addingReportingOverflow(size)
        counted.knownBytes = overflow ? .max : sum
      } else {
        counted.entriesWithoutSize += 1
      }
    }
    return counted
  }
}

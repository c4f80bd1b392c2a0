/// Several digests of the same bytes, computed in one pass: each chunk fed once is read by
/// every algorithm while it is still in the processor's cache.
///
/// A large chunk is fed in blocks of `blockSize` bytes, every algorithm taking a block before
/// the next is read, so that a 1 MiB chunk is not streamed from memory once per algorithm.
/// Feeding allocates nothing; `finalize()` allocates the hex strings.
///
/// Not thread-safe: one owner at a time feeds it.
// unchecked: one owner at a time feeds it; ownership moves between threads, it is never shared.
package final class DigestSet: @unchecked Sendable {
  /// Bytes every algorithm reads before the next block: well inside a core's L2 cache.
  package static let blockSize = 64 << 10

  /// The digests, one per algorithm, in canonical order.
  private let digests: [StreamingDigest]

  /// A set computing each of `algorithms` (repeats are computed once; an empty set computes
  /// nothing and `finalize()` gives no digest); `seed`'s algorithm, when computed, is fed
  /// its bytes first.
  ///
  /// Allocates the set, one array and each digest: a download makes one per file, so a
  /// million small files pay for no more.
  package init(_ algorithms: some Sequence<DigestAlgorithm>, seed: DigestSeed? = nil) {
    var wanted: UInt8 = 0
    for algorithm in algorithms { wanted |= 1 << algorithm.rank }
    var digests: [StreamingDigest] = []
    digests.reserveCapacity(wanted.nonzeroBitCount)
    for algorithm in DigestAlgorithm.allCases where wanted & (1 << algorithm.rank) != 0 {
      digests.append(
        StreamingDigest(algorithm, seed: seed?.algorithm == algorithm ? seed?.bytes ?? [] : []))
    }
    self.digests = digests
  }

  private init(digests: [StreamingDigest]) {
    self.digests = digests.sorted { $0.algorithm < $1.algorithm }
  }

  /// The algorithms computed, distinct, in canonical order.
  package var algorithms: [DigestAlgorithm] { digests.map(\.algorithm) }

  /// Whether the set computes `algorithm`.
  package func computes(_ algorithm: DigestAlgorithm) -> Bool {
    digests.contains { $0.algorithm == algorithm }
  }

  /// One set holding this set's digests and `other`'s, each keeping what it was fed: how a
  /// download adds the algorithms a server declares to a set that already hashed a prefix
  /// (`other` fed the same prefix). An algorithm in both keeps this set's digest. Both sets
  /// are taken over: feed only the result from now on.
  package func merged(with other: DigestSet) -> DigestSet {
    DigestSet(digests: digests + other.digests.filter { !computes($0.algorithm) })
  }

  /// Whether the set computes nothing.
  package var isEmpty: Bool { digests.isEmpty }

  /// Starts every digest over, as if newly created.
  package func reset() {
    for digest in digests { digest.reset() }
  }

  /// Feeds `bytes` into every digest.
  package func update(_ bytes: UnsafeRawBufferPointer) {
    if digests.count == 1 {
      digests[0].update(bytes)
      return
    }
    var offset = 0
    while offset < bytes.count {
      let end = min(offset + Self.blockSize, bytes.count)
      let block = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
      for digest in digests { digest.update(block) }
      offset = end
    }
  }

  /// Every digest of everything fed so far, as lowercase hex. Leaves the set unusable until
  /// `reset()`.
  package func finalize() -> DigestValues {
    var values = DigestValues()
    for digest in digests { values[digest.algorithm] = digest.finalize() }
    return values
  }
}

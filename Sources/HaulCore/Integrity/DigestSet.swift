/// Several digests of the same bytes, computed in one pass: each chunk fed once is read by
/// every algorithm while it is still in the processor's cache.
///
/// A large chunk is fed in blocks of `blockSize` bytes, every algorithm taking a block before
/// the next is read, so that a 1 MiB chunk is not streamed from memory once per algorithm.
/// Feeding allocates nothing; `finalize()` allocates the hex strings.
///
/// Not thread-safe: one owner at a time feeds it. `@unchecked Sendable` so that ownership can
/// move between threads; it is never shared.
public final class DigestSet: @unchecked Sendable {
  /// Bytes every algorithm reads before the next block: well inside a core's L2 cache.
  public static let blockSize = 64 << 10

  /// The algorithms computed, distinct, in canonical order.
  public let algorithms: [DigestAlgorithm]
  private let digests: [StreamingDigest]

  /// A set computing each of `algorithms` (repeats are computed once; an empty set computes
  /// nothing and `finalize()` gives no digest).
  public init(_ algorithms: some Sequence<DigestAlgorithm>) {
    self.algorithms = Array(Set(algorithms)).sorted()
    digests = self.algorithms.map { StreamingDigest($0) }
  }

  private init(digests: [StreamingDigest]) {
    self.digests = digests.sorted { $0.algorithm < $1.algorithm }
    algorithms = self.digests.map(\.algorithm)
  }

  /// Whether the set computes `algorithm`.
  public func computes(_ algorithm: DigestAlgorithm) -> Bool { algorithms.contains(algorithm) }

  /// One set holding this set's digests and `other`'s, each keeping what it was fed: how a
  /// download adds the algorithms a server declares to a set that already hashed a prefix
  /// (`other` fed the same prefix). An algorithm in both keeps this set's digest. Both sets
  /// are taken over: feed only the result from now on.
  public func merged(with other: DigestSet) -> DigestSet {
    DigestSet(digests: digests + other.digests.filter { !computes($0.algorithm) })
  }

  /// Whether the set computes nothing.
  public var isEmpty: Bool { digests.isEmpty }

  /// Starts every digest over, as if newly created.
  public func reset() {
    for digest in digests { digest.reset() }
  }

  /// Feeds `bytes` into every digest.
  public func update(_ bytes: UnsafeRawBufferPointer) {
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
  public func finalize() -> DigestValues {
    var values = DigestValues()
    for digest in digests { values[digest.algorithm] = digest.finalize() }
    return values
  }
}

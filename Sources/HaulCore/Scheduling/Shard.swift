/// One of N disjoint parts of a manifest (`--shard K/N`), so that N machines or processes
/// together run every entry exactly once, whatever the order of the manifest.
///
/// An entry's key is its destination: a download's `path` (empty and `.` segments dropped),
/// an upload's URL. Its shard is the 64-bit FNV-1a hash of the key's UTF-8 bytes, passed
/// through the MurmurHash3 64-bit finalizer (so every bit of the hash counts, whatever N),
/// modulo N: the same on every machine and every run, and easy to reproduce in any language.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
  /// This shard, `0 ≤ index < count`.
  public var index: Int
  /// The number of shards.
  public var count: Int

  public init?(index: Int, count: Int) {
    guard count > 0, index >= 0, index < count else { return nil }
    self.index = index
    self.count = count
  }

  /// Parses `K/N`.
  public init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
      return nil
    }
    self.init(index: index, count: count)
  }

  public var description: String { "\(index)/\(count)" }

  /// Whether `entry` belongs to this shard.
  public func contains(_ entry: ManifestEntry) -> Bool {
    Int(Self.mix(Self.hash(Self.key(of: entry))) % UInt64(count)) == index
  }

  /// The text an entry is sharded by.
  public static func key(of entry: ManifestEntry) -> String {
    switch entry.operation {
    case .download:
      entry.path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    case .upload:
      RedactedURL.string(entry.url)
    }
  }

  /// MurmurHash3's 64-bit finalizer: spreads FNV-1a's weak low bits over the whole word.
  public static func mix(_ value: UInt64) -> UInt64 {
    var h = value
    h ^= h >> 33
    h = h &* 0xff51_afd7_ed55_8ccd
    h ^= h >> 33
    h = h &* 0xc4ce_b9fe_1a85_ec53
    h ^= h >> 33
    return h
  }

  /// 64-bit FNV-1a.
  public static func hash(_ key: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
  }
}

/// The destinations seen so far in a manifest, to report the second entry that would write
/// the same file (or send to the same target) on its own line, naming the first.
///
/// What a destination is:
/// - a download: its normalized `path` (the file it writes);
/// - a `PUT` upload: its URL (scheme and host in lower case, default port filled in, no user
///   info or fragment), the resource it replaces;
/// - a `POST` upload: its URL and its `path`, since one endpoint commonly receives many
///   files; posting the same file to the same URL twice is the duplicate.
/// The three kinds are hashed apart, so a download never clashes with an upload.
///
/// Memory: a destination is kept as 96 bits of a 128-bit keyed hash beside the 32-bit line
/// that claimed it, 16 bytes in an open-addressing table (linear probing) that is a power of
/// two at most 75% full: 21–43 bytes per entry, 32 MiB for a million entries (48 MiB for a
/// moment while the table doubles). The hash is Swift's `Hasher` (SipHash, keyed with a
/// random seed per process) run twice with different first bytes; its bits are uniform, so
/// they index the table directly, and two different destinations share 96 bits with
/// probability about n²/2⁹⁷ (below 10⁻¹⁵ for ten million entries). The key is secret, so a
/// manifest cannot be written to collide on purpose. (SHA-256 would do as well but costs
/// more per entry through OpenSSL than the rest of the check.)
///
/// Not thread-safe; one validation pass owns it.
final class ManifestDestinations {
  /// Each slot is two words: the digest's first 64 bits, then its next 32 bits above the
  /// line number. Line numbers start at 1, so a zero second word marks an empty slot.
  private var slots: UnsafeMutablePointer<UInt64>
  private var capacity = 1 << 10
  private var count = 0

  init() {
    slots = .allocate(capacity: 2 * capacity)
    slots.initialize(repeating: 0, count: 2 * capacity)
  }

  deinit {
    slots.deallocate()
  }

  /// Records that the entry on `line` writes to its destination; returns the earlier line
  /// that already did, if any (and then keeps the earlier line).
  func insert(_ line: ManifestLineCheck) -> Int? {
    let digest: (UInt64, UInt64)
    switch line.operation {
    case .download:
      digest = hash(kind: UInt8(ascii: "d"), line.path)
    case .upload:
      guard let url = line.url else { preconditionFailure("an upload's URL is always built") }
      digest =
        line.method == "POST"
        ? hash(kind: UInt8(ascii: "p"), ManifestURL.destinationKey(url), line.path)
        : hash(kind: UInt8(ascii: "u"), ManifestURL.destinationKey(url))
    }
    return insert(digest: digest, line: line.line)
  }

  private func insert(digest: (UInt64, UInt64), line: Int) -> Int? {
    if (count + 1) * 4 > capacity * 3 { grow() }
    let tag = digest.1 & 0xFFFF_FFFF_0000_0000
    let lineBits = UInt64(UInt32(clamping: max(line, 1)))
    var index = Int(truncatingIfNeeded: digest.0) & (capacity - 1)
    while true {
      let second = slots[2 * index + 1]
      if second == 0 {
        slots[2 * index] = digest.0
        slots[2 * index + 1] = tag | lineBits
        count += 1
        return nil
      }
      if slots[2 * index] == digest.0, second & 0xFFFF_FFFF_0000_0000 == tag {
        return Int(second & 0xFFFF_FFFF)
      }
      index = (index + 1) & (capacity - 1)
    }
  }

  private func grow() {
    let old = slots
    let oldCapacity = capacity
    capacity *= 2
    slots = .allocate(capacity: 2 * capacity)
    slots.initialize(repeating: 0, count: 2 * capacity)
    for slot in 0..<oldCapacity where old[2 * slot + 1] != 0 {
      var index = Int(truncatingIfNeeded: old[2 * slot]) & (capacity - 1)
      while slots[2 * index + 1] != 0 { index = (index + 1) & (capacity - 1) }
      slots[2 * index] = old[2 * slot]
      slots[2 * index + 1] = old[2 * slot + 1]
    }
    old.deallocate()
  }

  /// 128 bits of hash over `kind`, then each part's UTF-8 bytes with a NUL after each (so
  /// that parts cannot run into one another): two runs of `Hasher` told apart by a first byte.
  private func hash(kind: UInt8, _ first: String, _ second: String? = nil) -> (UInt64, UInt64) {
    (
      Self.hash(run: 0, kind: kind, first, second),
      Self.hash(run: 1, kind: kind, first, second)
    )
  }

  private static func hash(run: UInt8, kind: UInt8, _ first: String, _ second: String?)
    -> UInt64
  {
    var hasher = Hasher()
    hasher.combine(run)
    hasher.combine(kind)
    add(first, to: &hasher)
    if let second { add(second, to: &hasher) }
    return UInt64(UInt(bitPattern: hasher.finalize()))
  }

  private static func add(_ part: String, to hasher: inout Hasher) {
    var part = part
    part.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    hasher.combine(UInt8(0))
  }
}

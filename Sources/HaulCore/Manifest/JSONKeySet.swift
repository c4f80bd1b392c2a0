/// The keys of one JSON object, to find a repeated one. Keys are compared as UTF-8 bytes
/// (not by Unicode canonical equivalence, as `String ==` would). A few keys are compared
/// one by one; past `linearLimit` a hash set keeps a huge object linear.
struct JSONKeySet {
  private static let linearLimit = 16
  private var few: [String] = []
  private var many: Set<[UInt8]> = []

  /// Adds `key`; `false` when it was already there.
  mutating func insert(_ key: String) -> Bool {
    if few.count < Self.linearLimit {
      if few.contains(where: { $0.utf8.elementsEqual(key.utf8) }) { return false }
      few.append(key)
      if few.count == Self.linearLimit { many = Set(few.map { Array($0.utf8) }) }
      return true
    }
    return many.insert(Array(key.utf8)).inserted
  }
}

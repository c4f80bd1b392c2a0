/// One HTTP header field. Names keep the case they were given; comparisons ignore case.
public struct HTTPField: Sendable, Hashable {
  public var name: String
  public var value: String

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }

  /// Whether this field's name equals `other`, ignoring ASCII case.
  public func hasName(_ other: String) -> Bool {
    guard name.utf8.count == other.utf8.count else { return false }
    // Read in place (no copy of either string, so no reference counting per call).
    let inPlace = name.utf8.withContiguousStorageIfAvailable { mine in
      other.utf8.withContiguousStorageIfAvailable { theirs in
        Self.equalIgnoringCase(mine, theirs)
      }
    }
    if let inPlace, let same = inPlace { return same }
    return name.utf8.elementsEqual(other.utf8) { $0.asciiLowercased == $1.asciiLowercased }
  }

  private static func equalIgnoringCase(
    _ mine: UnsafeBufferPointer<UInt8>, _ theirs: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    for index in mine.indices where mine[index].asciiLowercased != theirs[index].asciiLowercased {
      return false
    }
    return true
  }
}

extension Array where Element == HTTPField {
  /// The value of the first field named `name` (ASCII case ignored).
  public func value(for name: String) -> String? {
    for index in indices where self[index].hasName(name) { return self[index].value }
    return nil
  }
}

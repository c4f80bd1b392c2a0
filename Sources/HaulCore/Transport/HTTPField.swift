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
    var name = name
    var other = other
    return name.withUTF8 { mine in
      other.withUTF8 { theirs in
        for index in mine.indices where mine[index].asciiLowercased != theirs[index].asciiLowercased
        {
          return false
        }
        return true
      }
    }
  }
}

extension Array where Element == HTTPField {
  /// The value of the first field named `name` (ASCII case ignored).
  public func value(for name: String) -> String? {
    first(where: { $0.hasName(name) })?.value
  }
}

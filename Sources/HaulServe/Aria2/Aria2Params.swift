import Foundation

/// A call's positional parameters, the `token:` one taken off, read as aria2 reads them:
/// a missing one or one of the wrong JSON type is refused naming its index.
struct Aria2Params {
  var values: [Any]

  init(_ values: [Any]) {
    self.values = values
  }

  /// Takes the leading `token:SECRET` parameter off and returns the secret, if there is one.
  mutating func takeToken() -> Substring? {
    guard let first = values.first as? String, first.hasPrefix("token:") else { return nil }
    values.removeFirst()
    return first.dropFirst(6)
  }

  func isGiven(_ index: Int) -> Bool {
    index < values.count && !(values[index] is NSNull)
  }

  func string(_ index: Int) throws(Aria2Error) -> String {
    guard isGiven(index) else { throw .missing(index) }
    guard let text = values[index] as? String else { throw .wrongType(index) }
    return text
  }

  /// A whole number (JSON's `true` and `false` are not).
  func integer(_ index: Int) throws(Aria2Error) -> Int {
    guard isGiven(index) else { throw .missing(index) }
    guard let number = values[index] as? NSNumber, !Self.isBoolean(number),
      let value = Int(exactly: number.doubleValue)
    else { throw .wrongType(index) }
    return value
  }

  func optionalInteger(_ index: Int) throws(Aria2Error) -> Int? {
    isGiven(index) ? try integer(index) : nil
  }

  func list(_ index: Int) throws(Aria2Error) -> [Any] {
    guard isGiven(index) else { throw .missing(index) }
    guard let list = values[index] as? [Any] else { throw .wrongType(index) }
    return list
  }

  /// The strings of an optional list (`keys`): none given is empty.
  func strings(_ index: Int) throws(Aria2Error) -> [String] {
    guard isGiven(index) else { return [] }
    guard let list = values[index] as? [Any] else { throw .wrongType(index) }
    return list.compactMap { $0 as? String }
  }

  func object(_ index: Int) throws(Aria2Error) -> [String: Any] {
    guard isGiven(index) else { throw .missing(index) }
    guard let object = values[index] as? [String: Any] else { throw .wrongType(index) }
    return object
  }

  func optionalObject(_ index: Int) throws(Aria2Error) -> [String: Any] {
    isGiven(index) ? try object(index) : [:]
  }

  /// A GID: 16 hex digits, as the job ids are.
  func gid(_ index: Int) throws(Aria2Error) -> String {
    let text = try string(index)
    guard text.utf8.count == 16, text.utf8.allSatisfy({ Self.isHex($0) }) else {
      throw .invalidGID(text)
    }
    return text.lowercased()
  }

  /// JSONSerialization gives `true` and `false` as NSNumbers of C type `char`.
  static func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c"
  }

  static func isHex(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
  }
}

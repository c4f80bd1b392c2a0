extension UInt8 {
  /// The byte with ASCII `A`–`Z` folded to lower case; every other byte as it is. The one
  /// rule behind every comparison of header names and scheme-like tokens that ignores case.
  package var asciiLowercased: UInt8 {
    self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The type of the file system that holds an open file (`ext4`, `tmpfs`, ...), read from
/// the kernel's mount table, since Swift's Glibc module does not offer `fstatfs`.
enum FileSystemType {
  /// The type of the file system holding `fd`, or `nil` when it cannot be told.
  static func of(_ fd: Int32) -> String? {
    var info = stat()
    guard fstat(fd, &info) == 0,
      let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
    else { return nil }
    return type(device: "\(major(info.st_dev)):\(minor(info.st_dev))", in: table)
  }

  /// The type of the last mount of `device` (`MAJOR:MINOR`) in `table`, a mountinfo text:
  /// each line's third field is the device, and the first field after ` - ` the type. Read
  /// as bytes: every run reads the table at start, and splitting it into `Character`s is
  /// slow.
  static func type(device: String, in table: String) -> String? {
    let space = UInt8(ascii: " ")
    var found: String?
    for line in table.utf8.split(separator: UInt8(ascii: "\n")) {
      let fields = line.split(separator: space)
      guard fields.count > 3, fields[2].elementsEqual(device.utf8),
        let separator = fields.firstIndex(where: { $0.elementsEqual("-".utf8) }),
        separator + 1 < fields.count
      else { continue }
      found = String(Substring(fields[separator + 1]))
    }
    return found
  }

  private static func major(_ device: dev_t) -> UInt64 {
    (UInt64(device) >> 8) & 0xFFF | (UInt64(device) >> 32) & ~0xFFF
  }

  private static func minor(_ device: dev_t) -> UInt64 {
    UInt64(device) & 0xFF | (UInt64(device) >> 12) & ~0xFF
  }
}

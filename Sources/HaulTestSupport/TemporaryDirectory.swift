import Foundation

/// A fresh directory under the system temporary directory, for one test's files.
/// Nothing removes it implicitly: call `remove()` (usually in a `defer`).
public struct TemporaryDirectory: Sendable {
  /// Absolute path of the directory.
  public let path: String

  /// Creates `<tmp>/<prefix>.XXXXXX` with `mkdtemp`.
  public init(prefix: String = "haul-test") throws {
    let base = FileManager.default.temporaryDirectory.path
    var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
    let created = template.withUnsafeMutableBufferPointer { buffer -> String? in
      mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
    }
    guard let created else {
      throw FixtureError("cannot create a temporary directory in \(base): \(errnoText())")
    }
    path = created
  }

  /// The path of `name` inside this directory (`name` may contain `/`).
  public func file(_ name: String) -> String { "\(path)/\(name)" }

  /// The directory as a file URL.
  public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

  /// Deletes the directory and everything in it; errors are ignored (it is temporary).
  public func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

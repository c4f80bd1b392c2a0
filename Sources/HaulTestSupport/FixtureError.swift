import Foundation

/// A test fixture could not be set up (nginx missing, a port not bound, a file not written).
/// Tests let it propagate, so the case fails with this message rather than being skipped.
public struct FixtureError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

extension FixtureError {
  /// Throws unless `binary` (the daemon `name`, from the Debian package `package`) is
  /// installed, naming what to install.
  static func requireExecutable(_ binary: String, name: String, package: String) throws {
    guard FileManager.default.isExecutableFile(atPath: binary) else {
      throw FixtureError(
        "\(name) is required for this test but \(binary) is missing: "
          + "install the Debian package `\(package)` (apt-get install \(package))")
    }
  }
}

/// The text of `code` (default: the current `errno`), for fixture error messages.
func errnoText(_ code: Int32 = errno) -> String {
  String(cString: strerror(code))
}

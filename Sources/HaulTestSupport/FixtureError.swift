import Foundation

/// A test fixture could not be set up (nginx missing, a port not bound, a file not written).
/// Tests let it propagate, so the case fails with this message rather than being skipped.
public struct FixtureError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// The text of `code` (default: the current `errno`), for fixture error messages.
func errnoText(_ code: Int32 = errno) -> String {
  String(cString: strerror(code))
}

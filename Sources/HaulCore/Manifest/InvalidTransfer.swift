/// Why a transfer described in code is refused: the reason a manifest line with the same
/// fields gets (naming the field as the manifest does: `"path" must not contain ".."`), and
/// the transfer's place in its list when `TransferList` found it.
public struct InvalidTransfer: Error, Sendable, Hashable, CustomStringConvertible {
  /// The transfer's 1-based position in the list given to `TransferList`, or `nil` for a
  /// transfer refused on its own.
  public var position: Int?
  /// Short, names the field, and never quotes a header value or a URL (either may hold a
  /// secret).
  public var reason: String

  public init(_ reason: String, position: Int? = nil) {
    self.reason = reason
    self.position = position
  }

  /// `transfer N: reason`, or the reason alone.
  public var description: String {
    position.map { "transfer \($0): \(reason)" } ?? reason
  }
}

/// A command line haul cannot run: printed as one line plus a pointer to the command's help,
/// exit status 2.
struct UsageError: Error, Equatable {
  /// What is wrong, in one line; never contains a secret (a header value, say).
  var message: String
  /// The command whose help explains the right usage (`run`, `verify`), or nil for `haul`.
  var command: String?

  init(_ message: String, command: String? = nil) {
    self.message = message
    self.command = command
  }

  /// The full text for standard error.
  var text: String {
    let prefix = command.map { "haul \($0)" } ?? "haul"
    let help = command.map { "haul \($0) --help" } ?? "haul --help"
    return "\(prefix): \(message)\nsee '\(help)'"
  }
}

/// A failure of one transfer, with a stable code that the report, the events and the exit
/// status read, and a human message that never contains a secret.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The stable, machine-readable kind of failure (`http_404`, `timeout`, ...).
  public var code: Code
  /// What happened, for a person. Never holds header values or URL passwords.
  public var message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code.rawValue): \(message)" }

  /// A stable error code, as listed in docs/manual.md, "Error codes". Only the codes below
  /// exist: none can be made from another string, so nothing internal can pass for one.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The code as the report and the events spell it.
    public let rawValue: String
    private init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The final answer was this HTTP status (after any retries).
    public static func http(_ status: Int) -> Code { Code(rawValue: "http_\(status)") }
    /// The HTTP status carried by an `http_<status>` code, if this is one.
    public var httpStatus: Int? {
      rawValue.hasPrefix("http_") ? Int(rawValue.dropFirst(5)) : nil
    }

    /// The received length differs from the expected `size`.
    public static let sizeMismatch = Code(rawValue: "size_mismatch")
    /// The received bytes' SHA-256 differs from the expected `sha256`.
    public static let checksumMismatch = Code(rawValue: "checksum_mismatch")
    /// The credential command failed or a second 401 arrived.
    public static let auth = Code(rawValue: "auth")
    /// No byte moved for the stall timeout, or the connection took too long to open.
    public static let timeout = Code(rawValue: "timeout")
    /// Refused, reset, unreachable, name resolution failed.
    public static let connection = Code(rawValue: "connection")
    /// The proxy refused the request or its tunnel (a 407, a failed `CONNECT`), or could not
    /// be reached; the message names the proxy, never its credentials.
    public static let proxy = Code(rawValue: "proxy")
    /// The TLS handshake or certificate verification failed.
    public static let tls = Code(rawValue: "tls")
    /// A malformed response: short body, oversized headers, bad chunking, bad `Content-Range`.
    public static let `protocol` = Code(rawValue: "protocol")
    /// A redirect that the safety rules refuse (scheme, downgrade, loop, too many, uploads).
    public static let redirectRefused = Code(rawValue: "redirect_refused")
    /// A write would leave the output directory (a planted symlink, say).
    public static let pathRefused = Code(rawValue: "path_refused")
    /// The disk is full (ENOSPC, EDQUOT).
    public static let diskFull = Code(rawValue: "disk_full")
    /// Any other local file error.
    public static let io = Code(rawValue: "io")
    /// The run was interrupted before the transfer finished.
    public static let cancelled = Code(rawValue: "cancelled")
  }
}

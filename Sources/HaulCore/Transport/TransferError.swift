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
  /// exist: none can be made from another string, so nothing internal can pass for one. The
  /// code is a value of its own; `rawValue` is how the report and the events spell it.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure; `http` carries its status.
    private enum Kind: Hashable, Sendable {
      case http(Int)
      case sizeMismatch, checksumMismatch, auth, timeout, connection, proxy, tls
      case malformed, redirectRefused, pathRefused, diskFull, io, cancelled
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The code as the report and the events spell it (`http_404`, `size_mismatch`, ...).
    public var rawValue: String {
      switch kind {
      case .http(let status): "http_\(status)"
      case .sizeMismatch: "size_mismatch"
      case .checksumMismatch: "checksum_mismatch"
      case .auth: "auth"
      case .timeout: "timeout"
      case .connection: "connection"
      case .proxy: "proxy"
      case .tls: "tls"
      case .malformed: "protocol"
      case .redirectRefused: "redirect_refused"
      case .pathRefused: "path_refused"
      case .diskFull: "disk_full"
      case .io: "io"
      case .cancelled: "cancelled"
      }
    }

    public var description: String { rawValue }

    /// The final answer was this HTTP status (after any retries).
    public static func http(_ status: Int) -> Code { Code(.http(status)) }
    /// The HTTP status of an `http` code, if this is one.
    public var httpStatus: Int? {
      if case .http(let status) = kind { status } else { nil }
    }

    /// The received length differs from the expected `size`.
    public static let sizeMismatch = Code(.sizeMismatch)
    /// A digest of the received bytes differs from one expected (the manifest's, a
    /// checksum file's, the server's).
    public static let checksumMismatch = Code(.checksumMismatch)
    /// The credential command failed or a second 401 arrived.
    public static let auth = Code(.auth)
    /// No byte moved for the stall timeout, or the connection took too long to open.
    public static let timeout = Code(.timeout)
    /// Refused, reset, unreachable, name resolution failed.
    public static let connection = Code(.connection)
    /// The proxy refused the request or its tunnel (a 407, a failed `CONNECT`), or could not
    /// be reached; the message names the proxy, never its credentials.
    public static let proxy = Code(.proxy)
    /// The TLS handshake or certificate verification failed.
    public static let tls = Code(.tls)
    /// A malformed response: short body, oversized headers, bad chunking, bad `Content-Range`.
    public static let `protocol` = Code(.malformed)
    /// A redirect that the safety rules refuse (scheme, downgrade, loop, too many, uploads).
    public static let redirectRefused = Code(.redirectRefused)
    /// A write would leave the output directory (a planted symlink, say).
    public static let pathRefused = Code(.pathRefused)
    /// The disk is full (ENOSPC, EDQUOT).
    public static let diskFull = Code(.diskFull)
    /// Any other local file error.
    public static let io = Code(.io)
    /// The run was interrupted before the transfer finished.
    public static let cancelled = Code(.cancelled)
  }
}

extension TransferError {
  /// The failure of a response whose head libcurl refused as out of memory, as every
  /// transport on libcurl reports it: libcurl 7.88 refuses one header field line longer than
  /// its 100 KiB limit (`CURL_MAX_HTTP_HEADER`) with `CURLE_OUT_OF_MEMORY` before any head is
  /// delivered, a malformed response rather than a lack of memory.
  package static let headerLineTooLong = TransferError(
    .protocol, "a response header line is longer than libcurl accepts (100 KiB)")
}

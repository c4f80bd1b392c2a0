import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Every case of the transport contract, run through each `TransportKind` against real
/// servers: nginx and the in-process `FaultServer`. Cases live in extensions, one file per
/// concern (downloads, uploads, resume, failures, redirects, TLS).
@Suite(.timeLimit(.minutes(1)))
struct TransportConformance {}

extension TransferRequest {
  /// A GET with test-sized timeouts (a hang fails the case in seconds, not minutes).
  static func download(
    _ url: URL, range: ByteRange? = nil, ifRange: String? = nil, headers: [HTTPField] = [],
    stallTimeout: Double = 10
  ) -> TransferRequest {
    TransferRequest(
      url: url, headers: headers, range: range, ifRange: ifRange, stallTimeout: stallTimeout,
      connectTimeout: 5)
  }

  /// An upload of `length` bytes of the file at `path` from byte `offset` (the whole file
  /// by default) with test-sized timeouts.
  static func upload(
    _ url: URL, method: String, path: String, offset: Int64 = 0, length: Int64
  ) -> TransferRequest {
    TransferRequest(
      url: url, method: method, body: RequestBody(path: path, offset: offset, length: length),
      stallTimeout: 10, connectTimeout: 5)
  }
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
func withScratch<T>(_ body: (TemporaryDirectory) async throws -> T) async throws -> T {
  let scratch = try TemporaryDirectory(prefix: "haul-conformance")
  defer { scratch.remove() }
  return try await body(scratch)
}

/// Runs `body` with a started `FaultServer` on `host`, stopped afterwards.
func withFaultServer<T>(
  host: String = "127.0.0.1", _ body: (FaultServer) async throws -> T
) async throws -> T {
  let server = try FaultServer.started(host: host)
  defer { server.stop() }
  return try await body(server)
}

/// The error `operation` threw, or `nil` (recording an issue) when it succeeded.
func failure(
  sourceLocation: SourceLocation = #_sourceLocation,
  of operation: () async throws(TransferError) -> TransferResponse
) async -> TransferError? {
  do {
    let response = try await operation()
    Issue.record(
      "expected a failure, got status \(response.head.status)", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// The bytes of a (small) file; empty when missing.
func contents(of path: String) -> [UInt8] {
  (FileManager.default.contents(atPath: path)).map { [UInt8]($0) } ?? []
}

/// Writes `bytes` to a new file at `path`.
func write(_ bytes: [UInt8], to path: String) throws {
  guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
    throw FixtureError("cannot write \(path)")
  }
}

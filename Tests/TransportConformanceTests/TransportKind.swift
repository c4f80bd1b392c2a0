import HaulCore
import HaulCurl
import HaulURLSession
import Testing

/// The transports every conformance case runs through.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case curl
  case urlsession

  var testDescription: String { rawValue }

  /// A new transport of this kind.
  func make(_ options: TransportOptions = .init()) -> any Transport {
    switch self {
    case .curl: CurlTransport(options: options)
    case .urlsession: URLSessionTransport(options: options)
    }
  }

  /// Runs `body` with a new transport and shuts it down afterwards, however `body` ends.
  func withTransport<T>(
    _ options: TransportOptions = .init(), _ body: (any Transport) async throws -> T
  ) async throws -> T {
    let transport = make(options)
    do {
      let result = try await body(transport)
      await transport.shutdown()
      return result
    } catch {
      await transport.shutdown()
      throw error
    }
  }

  /// Ends the current test case, reported as cancelled rather than failed, when it runs
  /// through `transport`: for a case that transport cannot pass, with the reason why.
  func skip(on transport: TransportKind, because reason: String) throws {
    if self == transport { try Test.cancel(Comment(rawValue: reason)) }
  }
}

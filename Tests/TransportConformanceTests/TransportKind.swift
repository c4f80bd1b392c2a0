import HaulCore
import HaulCurl
import Testing

/// The transports every conformance case runs through.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case curl

  var testDescription: String { rawValue }

  /// A new transport of this kind.
  func make(_ options: TransportOptions = .init()) -> any Transport {
    switch self {
    case .curl: CurlTransport(options: options)
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
}

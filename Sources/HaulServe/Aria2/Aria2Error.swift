/// An aria2 JSON-RPC error, as aria2 answers it: `{"code": 1, "message": "..."}`. Every
/// failure of a method is code 1 with aria2's own message where clients read it (a bad
/// token, an unknown GID, a bad parameter or option); only a message that is not JSON-RPC
/// at all gets JSON-RPC 2.0's codes.
public struct Aria2Error: Error, Sendable, Equatable, CustomStringConvertible {
  public var code: Int
  public var message: String

  public init(_ message: String, code: Int = 1) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }

  /// The error object of a JSON-RPC answer.
  var object: [String: Any] { ["code": code, "message": message] }

  /// A wrong or missing `token:` parameter.
  static let unauthorized = Aria2Error("Unauthorized")
  /// A body that is not JSON.
  static let parse = Aria2Error("Parse error.", code: -32700)
  /// JSON that is not a call: no `method`, no `id`, `params` not a list.
  static let invalidRequest = Aria2Error("Invalid Request.", code: -32600)

  static func notFound(_ gid: String) -> Aria2Error { Aria2Error("GID \(gid) is not found") }
  static func invalidGID(_ text: String) -> Aria2Error { Aria2Error("Invalid GID \(text)") }
  static func noSuchMethod(_ name: String) -> Aria2Error {
    Aria2Error("No such method: \(name)")
  }
  static func wrongType(_ index: Int) -> Aria2Error {
    Aria2Error("The parameter at \(index) has wrong type.")
  }
  static func missing(_ index: Int) -> Aria2Error {
    Aria2Error("The parameter at \(index) is required but missing.")
  }
  /// A value an option does not take, in aria2's words.
  static func option(_ name: String) -> Aria2Error {
    Aria2Error("We encountered a problem while processing the option '--\(name)'.")
  }
  /// A feature haul does not have (BitTorrent, Metalink, changing a download's URIs).
  static func unsupported(_ what: String) -> Aria2Error {
    Aria2Error("\(what) is not supported by haul")
  }

  /// A refusal of the daemon as aria2 words the same refusal where it has one.
  static func service(_ error: ServiceError, gid: String) -> Aria2Error {
    switch error.code {
    case .notFound: notFound(gid)
    default: Aria2Error(error.message)
    }
  }
}

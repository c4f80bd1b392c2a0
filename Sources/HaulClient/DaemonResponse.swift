import Foundation

/// The daemon's answer to one call: its status and whole body.
struct DaemonResponse: Sendable {
  var status: Int
  var body: Data

  /// Whether the call succeeded (a 2xx status).
  var isSuccess: Bool { (200..<300).contains(status) }

  /// The error an unsuccessful answer stands for: the code and message of the daemon's
  /// `{"error": {"code", "message"}}` body, or, without one, `http_STATUS` and the body's
  /// first line (or the status alone).
  var apiError: DaemonError {
    if let document = try? JSONDecoder().decode(ErrorDocument.self, from: body) {
      return .api(status: status, code: document.error.code, message: document.error.message)
    }
    let text = String(decoding: body.prefix(200), as: UTF8.self)
    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    return .api(
      status: status, code: "http_\(status)",
      message: line.isEmpty ? "HTTP status \(status)" : line)
  }

  private struct ErrorDocument: Decodable {
    struct Body: Decodable {
      var code: String
      var message: String
    }
    var error: Body
  }
}

internal import CCrypto
import Foundation

/// The server's side of the WebSocket opening handshake (RFC 6455, section 4.2): whether a
/// request asks for a WebSocket, and the `101` answer that accepts it.
public enum WebSocketHandshake {
  /// The GUID RFC 6455 appends to the client's key before hashing it.
  static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

  /// Whether `request` asks to upgrade to WebSocket (`Upgrade: websocket`), valid or not.
  public static func isUpgrade(_ request: HTTPRequest) -> Bool {
    request.header("Upgrade")?.lowercased().contains("websocket") == true
  }

  /// The answer to a WebSocket upgrade request: `101 Switching Protocols` whose connection
  /// `handler` then serves, or the refusal of a malformed handshake: `400`, or `426` with
  /// `Sec-WebSocket-Version: 13` for another version of the protocol.
  public static func response(to request: HTTPRequest, handler: WebSocketHandler) -> HTTPResponse {
    guard request.method == "GET",
      request.header("Connection")?.lowercased().split(separator: ",")
        .contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) == true,
      let key = request.header("Sec-WebSocket-Key")?.trimmingCharacters(in: .whitespaces),
      Data(base64Encoded: key)?.count == 16
    else {
      return HTTPResponse(status: 400)
    }
    guard request.header("Sec-WebSocket-Version")?.trimmingCharacters(in: .whitespaces) == "13"
    else {
      return HTTPResponse(status: 426, headers: ["Sec-WebSocket-Version": "13"])
    }
    return HTTPResponse(
      status: 101,
      headers: ["Upgrade": "websocket", "Sec-WebSocket-Accept": accept(key: key)],
      body: .webSocket(handler))
  }

  /// `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
  static func accept(key: String) -> String {
    let input = Array((key + guid).utf8)
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let done = input.withUnsafeBytes { bytes in
      EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha1(), nil)
    }
    precondition(done == 1 && length == 20, "OpenSSL's SHA-1 failed")
    return Data(digest[0..<20]).base64EncodedString()
  }
}

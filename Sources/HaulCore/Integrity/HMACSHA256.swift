internal import CCrypto

/// HMAC-SHA256 from OpenSSL's one-shot `HMAC()`, for AWS Signature Version 4 (the signing
/// key chain and the signature itself). Never a hand-written MAC.
package enum HMACSHA256 {
  /// The 32-byte MAC of `message` under `key`.
  package static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let produced = key.withUnsafeBufferPointer { keyBytes in
      message.withUnsafeBufferPointer { messageBytes in
        HMAC(
          EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress,
          messageBytes.count, &out, &length)
      }
    }
    guard produced != nil, length == 32 else { fatalError("OpenSSL HMAC-SHA256 failed") }
    return Array(out.prefix(32))
  }

  /// The MAC of `message`'s UTF-8 bytes under `key`.
  package static func mac(key: [UInt8], message: String) -> [UInt8] {
    mac(key: key, message: Array(message.utf8))
  }
}

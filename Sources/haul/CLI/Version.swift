internal import CCrypto
internal import CCurl
import HaulCore

/// haul's version and the versions of the libraries it runs on, as `haul --version` prints
/// them: the libcurl that moves the bytes (with its TLS and HTTP/2 libraries) and the OpenSSL
/// that computes the digests, both read from the libraries loaded at run time.
enum Version {
  static let current = HaulVersion.current

  /// `haul --version`'s text: haul's version, then one line per library.
  static var text: String {
    "haul \(current)\n\(curl)\n\(openSSL)\n"
  }

  /// The running libcurl, as `libcurl 7.88.1 (OpenSSL/3.0.15, nghttp2/1.52.0)`.
  static var curl: String {
    guard let info = haul_curl_version_info()?.pointee, let version = info.version else {
      return "libcurl (version unknown)"
    }
    var parts: [String] = []
    if let ssl = info.ssl_version { parts.append(String(cString: ssl)) }
    // nghttp2_version is part of the record from CURLVERSION_SIXTH (age 5) on.
    if info.age.rawValue >= 5, let nghttp2 = info.nghttp2_version {
      parts.append("nghttp2/" + String(cString: nghttp2))
    }
    let libraries = parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    return "libcurl " + String(cString: version) + libraries
  }

  /// The running libcrypto, as `OpenSSL 3.0.15 3 Sep 2024 (digests)`.
  static var openSSL: String {
    String(cString: OpenSSL_version(OPENSSL_VERSION)) + " (digests)"
  }
}

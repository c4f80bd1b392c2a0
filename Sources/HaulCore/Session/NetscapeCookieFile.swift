import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The Netscape cookie file curl (`-b`, `-c`) and wget (`--load-cookies`,
/// `--save-cookies`) read and write: one cookie a line, seven fields separated by tabs —
/// domain, include-subdomains (`TRUE`/`FALSE`), path, secure (`TRUE`/`FALSE`), expiry
/// (seconds since 1970, `0` for a session cookie), name, value. A domain prefixed with
/// `#HttpOnly_` marks an `HttpOnly` cookie; other lines starting with `#`, and empty lines,
/// are comments. A line that is not a cookie is skipped, as curl and wget skip it. The
/// `:PORT` wget adds to a host on a port of its own is dropped: cookies ignore ports.
public enum NetscapeCookieFile {
  /// The first line of the file, which curl and wget write.
  public static let header = "# Netscape HTTP Cookie File\n"

  /// The cookies of `text`.
  public static func parse(_ text: String) -> [Cookie] {
    var cookies: [Cookie] = []
    for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
      var line = Substring(line)
      var httpOnly = false
      if line.hasPrefix("#HttpOnly_") {
        line = line.dropFirst("#HttpOnly_".count)
        httpOnly = true
      } else if line.hasPrefix("#") {
        continue
      }
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count == 7 || fields.count == 6 else { continue }
      var domain = withoutPort(fields[0].lowercased())
      if domain.hasPrefix(".") { domain.removeFirst() }
      guard !domain.isEmpty, !fields[5].isEmpty, let expiry = Int64(fields[4]) else { continue }
      let subdomains = fields[1].uppercased() == "TRUE"
      let path = fields[2].hasPrefix("/") ? String(fields[2]) : "/"
      cookies.append(
        Cookie(
          name: String(fields[5]), value: fields.count == 7 ? String(fields[6]) : "",
          domain: domain, hostOnly: !subdomains, path: path,
          secure: fields[3].uppercased() == "TRUE", httpOnly: httpOnly,
          expires: expiry == 0 ? nil : expiry))
    }
    return cookies
  }

  /// `domain` without the `:PORT` wget writes after a host on another port than the
  /// scheme's (`127.0.0.1:8080`): cookies ignore ports, and curl writes none.
  static func withoutPort(_ domain: String) -> String {
    if domain.hasPrefix("["), let close = domain.firstIndex(of: "]") {
      return String(domain[domain.index(after: domain.startIndex)..<close])
    }
    guard let colon = domain.lastIndex(of: ":"), domain.firstIndex(of: ":") == colon,
      domain[domain.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber })
    else { return domain }
    return String(domain[..<colon])
  }

  /// The file's text for `cookies`: a domain cookie's domain with a leading `.` and
  /// include-subdomains `TRUE`, a host-only cookie's without and `FALSE`, as curl writes them.
  public static func text(_ cookies: [Cookie]) -> String {
    var text = header + "# Written by haul: it holds secrets, keep it private.\n\n"
    for cookie in cookies {
      let domain =
        (cookie.httpOnly ? "#HttpOnly_" : "") + (cookie.hostOnly ? "" : ".")
        + cookie.domain
      let fields = [
        domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path, cookie.secure ? "TRUE" : "FALSE",
        String(cookie.expires ?? 0), cookie.name, cookie.value,
      ]
      text += fields.joined(separator: "\t") + "\n"
    }
    return text
  }

  /// Reads the cookies of the file at `path`. Throws `cookies_unreadable` when it cannot be
  /// read.
  public static func read(_ path: String) throws(CookieFileError) -> [Cookie] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CookieFileError(.unreadable, file: path, reason: "cannot be read")
    }
    return parse(String(decoding: data, as: UTF8.self))
  }

  /// Writes `cookies` to `path` atomically (a temporary file beside it, synced, renamed over
  /// it) with mode 0600, whatever the umask: the file holds secrets. Throws
  /// `cookies_unwritable`.
  public static func write(_ cookies: [Cookie], to path: String) throws(CookieFileError) {
    let temporary = path + ".haul-\(getpid()).tmp"
    let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard file >= 0 else {
      throw CookieFileError(.unwritable, file: path, reason: String(cString: strerror(errno)))
    }
    let written = writeAll(file, text(cookies))
    let synced = written && fchmod(file, 0o600) == 0 && fsync(file) == 0
    let reason = String(cString: strerror(errno))
    close(file)
    guard synced, rename(temporary, path) == 0 else {
      let reason = synced ? String(cString: strerror(errno)) : reason
      unlink(temporary)
      throw CookieFileError(.unwritable, file: path, reason: reason)
    }
  }
}

/// A cookie file (`--cookies`, `--cookie-jar`) that cannot be read or written. Reading is
/// a usage error (the run stops before any transfer); writing fails the run's outputs.
public struct CookieFileError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The stable kind of problem.
  public enum Code: String, Sendable, Hashable {
    /// The file to load does not exist or cannot be read.
    case unreadable = "cookies_unreadable"
    /// The jar cannot be written.
    case unwritable = "cookies_unwritable"
  }

  public var code: Code
  public var file: String
  public var reason: String

  public init(_ code: Code, file: String, reason: String) {
    self.code = code
    self.file = file
    self.reason = reason
  }

  public var description: String { "\(file): \(reason)" }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The logins of a `.netrc` file (`--netrc`, `--netrc-file`), read as curl reads them.
///
/// The file is a sequence of tokens separated by white space: `machine NAME` starts a host's
/// entry and `default` the entry for any other host; `login`, `password` and `account` take
/// the next token as their value; `macdef NAME` starts a macro whose body runs to the next
/// empty line and is skipped. A token may be quoted (`"a b"`, with `\"`, `\\`, `\n`, `\r`,
/// `\t` escapes), as curl accepts since 7.84; a `#` that starts a token starts a comment to
/// the end of the line. Unknown keywords are skipped, as curl skips them.
///
/// Only `login` and `password` are used: `account` and macros mean nothing to HTTP. The
/// logins are secrets: `description` never shows a password.
public struct Netrc: Sendable, Hashable, CustomStringConvertible {
  /// One entry's login and password; printing it shows neither.
  public struct Login: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var login: String
    public var password: String

    public init(login: String, password: String) {
      self.login = login
      self.password = password
    }

    public var description: String { "Login(<secret>)" }
    public var debugDescription: String { description }

    /// The value of an `Authorization` header carrying this login (RFC 7617, UTF-8).
    public var basicAuthorization: String {
      "Basic " + Data("\(login):\(password)".utf8).base64EncodedString()
    }
  }

  /// A `machine` entry: a host name (lower-cased) and its login.
  public struct Machine: Sendable, Hashable {
    public var host: String
    public var login: Login
  }

  /// The `machine` entries, in file order.
  public private(set) var machines: [Machine] = []
  /// The `default` entry's login, when the file has one.
  public private(set) var fallback: Login?

  /// Reads the tokens of `text`. Throws `netrc_malformed` for a quoted token without its
  /// closing quote or a keyword without its value.
  public init(parsing text: String, file: String = ".netrc") throws(NetrcError) {
    var tokens = Tokens(text: Array(text.utf8), file: file)
    var current: (host: String?, login: String?, password: String?)?
    func close() {
      guard let entry = current, let login = entry.login else {
        current = nil
        return
      }
      let value = Login(login: login, password: entry.password ?? "")
      if let host = entry.host {
        machines.append(Machine(host: host, login: value))
      } else if fallback == nil {
        fallback = value
      }
      current = nil
    }
    func value(after keyword: String) throws(NetrcError) -> String {
      guard let value = try tokens.next() else {
        throw NetrcError(
          .malformed, file: file, line: tokens.line, reason: "\(keyword) has no value")
      }
      return value
    }
    while let token = try tokens.next() {
      switch token {
      case "machine":
        close()
        current = (try value(after: "machine").lowercased(), nil, nil)
      case "default":
        close()
        current = (nil, nil, nil)
      case "login":
        let login = try value(after: "login")
        if current != nil, current?.login == nil { current?.login = login }
      case "password":
        let password = try value(after: "password")
        if current != nil, current?.password == nil { current?.password = password }
      case "account":
        _ = try value(after: "account")
      case "macdef":
        _ = try value(after: "macdef")
        tokens.skipMacroBody()
      default:
        break
      }
    }
    close()
  }

  /// The login for `host`: its first `machine` entry (names compared without case, ports
  /// play no part, as in curl), else `default` when `allowDefault`.
  public func login(for host: String, allowDefault: Bool) -> Login? {
    let host = host.lowercased()
    if let entry = machines.first(where: { $0.host == host }) { return entry.login }
    return allowDefault ? fallback : nil
  }

  /// The hosts that have a login, never a password.
  public var description: String {
    "Netrc(machines: \(machines.map(\.host)), default: \(fallback != nil))"
  }

  /// The tokens of the file, one at a time.
  private struct Tokens {
    let text: [UInt8]
    let file: String
    var index = 0
    /// The 1-based line of the last token read, for error messages.
    var line = 1

    static func isSpace(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
        || byte == 0x0B
    }

    mutating func next() throws(NetrcError) -> String? {
      while index < text.count {
        let byte = text[index]
        if byte == 0x0A { line += 1 }
        if Self.isSpace(byte) {
          index += 1
        } else if byte == UInt8(ascii: "#") {
          while index < text.count, text[index] != 0x0A { index += 1 }
        } else {
          break
        }
      }
      guard index < text.count else { return nil }
      if text[index] == UInt8(ascii: "\"") { return try quoted() }
      let start = index
      while index < text.count, !Self.isSpace(text[index]) { index += 1 }
      return String(decoding: text[start..<index], as: UTF8.self)
    }

    private mutating func quoted() throws(NetrcError) -> String {
      let startLine = line
      index += 1
      var bytes: [UInt8] = []
      while index < text.count {
        let byte = text[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          return String(decoding: bytes, as: UTF8.self)
        case UInt8(ascii: "\\") where index < text.count:
          let escaped = text[index]
          index += 1
          switch escaped {
          case UInt8(ascii: "n"): bytes.append(0x0A)
          case UInt8(ascii: "r"): bytes.append(0x0D)
          case UInt8(ascii: "t"): bytes.append(0x09)
          default: bytes.append(escaped)
          }
        default:
          if byte == 0x0A { line += 1 }
          bytes.append(byte)
        }
      }
      throw NetrcError(
        .malformed, file: file, line: startLine, reason: "a quoted token has no closing quote")
    }

    /// Skips a `macdef` body: everything up to and including the next empty line.
    mutating func skipMacroBody() {
      while index < text.count, text[index] != 0x0A { index += 1 }
      var previousNewline = false
      while index < text.count {
        let byte = text[index]
        index += 1
        if byte == 0x0A {
          line += 1
          if previousNewline { return }
          previousNewline = true
        } else if byte != 0x0D {
          previousNewline = false
        }
      }
    }
  }
}

extension Netrc {
  /// Reads the file at `path`. Throws `netrc_unreadable` when it cannot be read,
  /// `netrc_malformed` when it cannot be parsed.
  public init(contentsOf path: String) throws(NetrcError) {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw NetrcError(.unreadable, file: path, line: 0, reason: "cannot be read")
    }
    try self.init(parsing: String(decoding: data, as: UTF8.self), file: path)
  }

  /// The file `--netrc` reads: `$NETRC` when set and not empty (as curl 8.16 and later
  /// read it), else `$HOME/.netrc`; `nil` without either variable.
  public static func defaultPath(environment: [String: String]) -> String? {
    if let path = environment["NETRC"], !path.isEmpty { return path }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home.hasSuffix("/") ? home + ".netrc" : home + "/.netrc"
  }

  /// Whether the file at `path` can be read by users other than its owner (group or
  /// others have read permission): a password file should not be.
  public static func isReadableByOthers(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    return info.st_mode & 0o044 != 0
  }
}

/// A `.netrc` file that cannot be used: a usage error, the run stops before any transfer.
/// The message never holds a login or password.
public struct NetrcError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The stable kind of problem.
  public enum Code: String, Sendable, Hashable {
    /// The file does not exist or cannot be read.
    case unreadable = "netrc_unreadable"
    /// A quoted token is not closed, or a keyword has no value.
    case malformed = "netrc_malformed"
  }

  public var code: Code
  public var file: String
  /// 1-based line; 0 when the file as a whole cannot be read.
  public var line: Int
  public var reason: String

  public init(_ code: Code, file: String, line: Int, reason: String) {
    self.code = code
    self.file = file
    self.line = line
    self.reason = reason
  }

  public var description: String {
    line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
  }
}

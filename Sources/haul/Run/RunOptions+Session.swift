import Foundation
import HaulCore

/// `--netrc`, `--netrc-file`, `--cookies` and `--cookie-jar`: where the run's logins and
/// cookies come from and where its cookies go (docs/behaviour.md, "Logins and cookies").
struct SessionOptions: Sendable, Hashable {
  /// The `.netrc` file to read: `--netrc-file`, or `--netrc`'s `$NETRC` / `~/.netrc`.
  var netrcFile: String?
  /// `--cookies`: a Netscape cookie file loaded before the run.
  var cookiesFile: String?
  /// `--cookie-jar`: where the cookies the run ended with are written.
  var cookieJar: String?

  /// Whether any of the options was given: without them the run has no `HTTPState`.
  var isEmpty: Bool { netrcFile == nil && cookiesFile == nil && cookieJar == nil }

  /// Reads and checks the options of `parsed`; `environment` gives `$NETRC` and `$HOME`.
  init(_ parsed: ParsedArguments, environment: [String: String], command: String)
    throws(UsageError)
  {
    if parsed.has("netrc") {
      guard parsed.value("netrc-file") == nil else {
        throw UsageError("--netrc and --netrc-file cannot be combined", command: command)
      }
      guard let path = Netrc.defaultPath(environment: environment) else {
        throw UsageError("--netrc: neither NETRC nor HOME is set", command: command)
      }
      netrcFile = path
    } else if let path = parsed.value("netrc-file") {
      guard !path.isEmpty else {
        throw UsageError("--netrc-file needs a file name", command: command)
      }
      netrcFile = path
    }
    if let path = parsed.value("cookies") {
      guard !path.isEmpty else { throw UsageError("--cookies needs a file name", command: command) }
      cookiesFile = path
    }
    if let path = parsed.value("cookie-jar") {
      cookieJar = try RunOptions.outputFile("cookie-jar", path, command: command)
    }
  }

  init() {}

  /// The run's logins and cookies, read from the files; `nil` when no option was given.
  /// A file that cannot be read or parsed is a usage error, but for a `--cookies` file that
  /// is also the `--cookie-jar` and does not exist yet (the first of several runs). `warn` gets a line for a
  /// `.netrc` file that users other than its owner can read.
  func state(command: String, warn: (String) -> Void) throws(UsageError) -> HTTPState? {
    guard !isEmpty else { return nil }
    var netrc: Netrc?
    if let path = netrcFile {
      do throws(NetrcError) {
        netrc = try Netrc(contentsOf: path)
      } catch {
        throw UsageError("--netrc: \(error)", command: command)
      }
      if Netrc.isReadableByOthers(path) {
        warn(
          "haul: warning: \(path) can be read by other users; its passwords should not be"
            + " (chmod 600)")
      }
    }
    var cookies: [Cookie]?
    if let path = cookiesFile, path == cookieJar, !FileManager.default.fileExists(atPath: path) {
      // The jar of earlier runs, not written yet: the first run starts with none.
      cookies = []
    } else if let path = cookiesFile {
      do throws(CookieFileError) {
        cookies = try NetscapeCookieFile.read(path)
      } catch {
        throw UsageError("--cookies: \(error)", command: command)
      }
    } else if cookieJar != nil {
      cookies = []
    }
    return HTTPState(netrc: netrc, cookies: cookies)
  }
}

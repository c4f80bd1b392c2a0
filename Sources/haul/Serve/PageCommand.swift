import Foundation
import HaulServe

/// `haul page`: prints the address of the daemon's page with the token in its fragment
/// (`http://127.0.0.1:PORT/#token=...`), read from the daemon's state directory: its
/// `token` and the `listen` file `haul serve --listen` writes. The fragment never reaches
/// the daemon in a request, and the page removes it from the address bar.
struct PageCommand {
  let parsed: ParsedArguments

  func execute() -> ExitCode {
    do throws(UsageError) {
      Console.output(try address() + "\n")
      return .ok
    } catch {
      Console.error(error.text + "\n")
      return .usage
    }
  }

  /// The page's address with the token.
  func address() throws(UsageError) -> String {
    guard parsed.positionals.isEmpty else {
      throw UsageError("unexpected argument '\(parsed.positionals[0])'", command: "page")
    }
    let state =
      parsed.value("state-dir") ?? ServicePaths.stateDirectory(ProcessInfo.processInfo.environment)
    guard let listen = parsed.value("listen") ?? ListenFile.read(state: state) else {
      throw UsageError(
        "no daemon listens on TCP for '\(state)' (start haul serve --listen, or give --listen)",
        command: "page")
    }
    guard let data = FileManager.default.contents(atPath: state + "/token") else {
      throw UsageError("cannot read the token '\(state)/token'", command: "page")
    }
    let token = String(decoding: data, as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines)
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    let fragment = token.addingPercentEncoding(withAllowedCharacters: allowed) ?? token
    let host = listen.hasPrefix(":") ? "127.0.0.1" + listen : listen
    return "http://\(host)/#token=\(fragment)"
  }
}

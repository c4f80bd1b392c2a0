import Foundation

/// The Hub token of the run, found as `huggingface_hub` finds it (`utils/_auth.py`):
/// `HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN`, else the file `HF_TOKEN_PATH`, else
/// `$HF_HOME/token` (the home defaulting to `$XDG_CACHE_HOME/huggingface`, else
/// `~/.cache/huggingface`); white space and line breaks trimmed, an empty one none.
///
/// A secret: `description` names where it came from, never its value.
package struct HFToken: Sendable, Hashable, CustomStringConvertible {
  /// The token, sent as `Authorization: Bearer`.
  package let value: String
  /// Where it was found: `HF_TOKEN`, `/home/u/.cache/huggingface/token`.
  package let source: String

  package init(value: String, source: String) {
    self.value = value
    self.source = source
  }

  package var description: String { "the token from \(source)" }

  /// The token `environment` leads to, reading files with `read`; `nil` when there is none.
  package static func find(
    in environment: [String: String], read: (String) -> String? = HFToken.readFile
  ) -> HFToken? {
    // The first of the two that is set and not empty, as Python's `or` picks it.
    if let name = ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"].first(where: {
      !(environment[$0] ?? "").isEmpty
    }), let token = clean(environment[name]!) {
      return HFToken(value: token, source: name)
    }
    let path = tokenPath(in: environment)
    guard let text = read(path), let token = clean(text) else { return nil }
    return HFToken(value: token, source: path)
  }

  /// The token file: `HF_TOKEN_PATH`, else `HF_HOME/token`.
  package static func tokenPath(in environment: [String: String]) -> String {
    if let path = environment["HF_TOKEN_PATH"], !path.isEmpty {
      return expandingTilde(path, environment)
    }
    return home(in: environment) + "/token"
  }

  /// `HF_HOME`, else `XDG_CACHE_HOME/huggingface`, else `~/.cache/huggingface`.
  package static func home(in environment: [String: String]) -> String {
    if let home = environment["HF_HOME"], !home.isEmpty {
      return expandingTilde(home, environment)
    }
    if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
      return expandingTilde(cache, environment) + "/huggingface"
    }
    return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/huggingface"
  }

  /// The text of the file at `path`, if it can be read.
  package static func readFile(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
  }

  /// `text` without line breaks and surrounding white space; `nil` when nothing is left.
  static func clean(_ text: String) -> String? {
    let token = text.filter { $0 != "\r" && $0 != "\n" }.trimmingCharacters(in: .whitespaces)
    return token.isEmpty ? nil : token
  }

  private static func expandingTilde(_ path: String, _ environment: [String: String]) -> String {
    guard path == "~" || path.hasPrefix("~/") else { return path }
    return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
  }
}

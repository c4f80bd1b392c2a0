import Foundation
import HaulCore

/// Tells why the Hub refused a request with 401 or 403: the repository (`hf://ORG/NAME`),
/// the Hub's `X-Error-Message` where it gives one (a gated repository's "Access to model …
/// is restricted"), and the token the run sent or that it sent none. Never the token.
///
/// The Hub answers 401 for a private repository (or one that does not exist) without
/// access, and for a gated one without a token; 403 for a gated one whose token lacks
/// access (`huggingface_hub`'s `utils/_http.py`, `hf_raise_for_status`).
package struct HFRefusals: RefusalExplainer {
  package let endpoint: HFEndpoint
  package let token: HFToken?

  package init(endpoint: HFEndpoint, token: HFToken?) {
    self.endpoint = endpoint
    self.token = token
  }

  package func explain(_ head: ResponseHead, for url: URL) -> String? {
    guard head.status == 401 || head.status == 403,
      Origin(url) == endpoint.origin, let repository = endpoint.repository(of: url)
    else { return nil }
    let code = head.value(for: "X-Error-Code")
    var said: String
    if let message = head.value(for: "X-Error-Message"), !message.isEmpty {
      said = message.filter { !$0.isNewline }
    } else if code == "GatedRepo" {
      said = "the repository is gated"
    } else {
      said = "the repository is private, gated or does not exist"
    }
    let sent =
      token.map { "\($0) was sent and gives no access to it" }
      ?? "no token was sent (set HF_TOKEN, or log in with `hf auth login`)"
    said = "\(repository): \(said); \(sent)"
    return said
  }
}

import Foundation

/// Says why a server refused a request where the status alone does not: a Hugging Face
/// Hub's gated or private repository is a 401 or 403 whose meaning lies in the URL (the
/// repository), the credential the run holds and the Hub's own header.
///
/// Asked only for an answer of 400 or more, once per failed attempt; the failure keeps its
/// `http_NNN` code and the sentence follows `the server answered NNN`.
package protocol RefusalExplainer: Sendable {
  /// The sentence that tells why `url` was refused with `head`; `nil` when this explainer
  /// knows nothing of it. Never holds a secret.
  func explain(_ head: ResponseHead, for url: URL) -> String?
}

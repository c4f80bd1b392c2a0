import Foundation

/// The Hub a run reaches and its token, read from the environment as `huggingface_hub`
/// reads them (`constants.py`): `HF_ENDPOINT` (path included) else the public Hub, and
/// `HFToken.find`.
package struct HFSetup: Sendable {
  package let endpoint: HFEndpoint
  package let token: HFToken?

  package init(endpoint: HFEndpoint, token: HFToken?) {
    self.endpoint = endpoint
    self.token = token
  }

  /// The Hub cache `--hf-cache` fills when it names none: `HF_HUB_CACHE`, else
  /// `$HF_HOME/hub` (`huggingface_hub`'s `constants.py`).
  package static func cacheDirectory(in environment: [String: String]) -> String {
    if let cache = environment["HF_HUB_CACHE"], !cache.isEmpty { return cache }
    return HFToken.home(in: environment) + "/hub"
  }

  /// The setup `environment` gives; a `HF_ENDPOINT` that is no http(s) URL is named in
  /// the error.
  package static func from(_ environment: [String: String]) -> Result<HFSetup, HFAddressError> {
    let base =
      environment["HF_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 } ?? HFEndpoint.defaultBase
    guard let endpoint = HFEndpoint(base) else {
      return .failure(HFAddressError("HF_ENDPOINT is not an http(s) URL"))
    }
    return .success(HFSetup(endpoint: endpoint, token: HFToken.find(in: environment)))
  }
}

import Foundation
import HaulCore

extension SchedulerOptions {
  /// Adds the Hugging Face Hub at `endpoint` to the run: `hf://` folders are listed from
  /// its tree API and single files asked of it with a `HEAD` (before the web's folders: add
  /// it before `addWebFolders()`), `token` goes to its origin only, after the run's own
  /// interceptor when that adapts at once (an `--auth-command`'s token takes the Hub's
  /// place), and a 401 or 403 of the Hub says which repository and token. With `cache`,
  /// folders and files land in the Hub cache's layout (`HFCacheLayout`). With
  /// `segmentsByDefault` (the run gave no `--segments`), the Hub's large files come down in
  /// ranges (`HFSegmentDefaults`), beside any other server's default already set. With
  /// `perHostByDefault` (the run gave no `--per-host`), the Hub's origin has more transfers
  /// in flight than other hosts (`HFHostLimits`): the transport must allow
  /// `HFHostLimits.perHost` connections to one host.
  package mutating func addHuggingFace(
    endpoint: HFEndpoint, token: HFToken?, cache: Bool = false, segmentsByDefault: Bool = false,
    perHostByDefault: Bool = false
  ) {
    folderListers.append(HFTreeLister(endpoint: endpoint, cache: cache))
    folderListers.append(HFFileLister(endpoint: endpoint, cache: cache))
    refusals = HFRefusals(endpoint: endpoint, token: token)
    if perHostByDefault {
      hostLimits = HFHostLimits(endpoint: endpoint, others: hostLimits)
    }
    if segmentsByDefault {
      segmentDefaults = HFSegmentDefaults(endpoint: endpoint, others: segmentDefaults)
    }
    guard let token else { return }
    if interceptor == nil {
      interceptor = HFTokenInterceptor(token: token, endpoint: endpoint, inner: nil)
    } else if let inner = interceptor as? any ImmediateRequestInterceptor {
      interceptor = HFTokenInterceptor(token: token, endpoint: endpoint, inner: inner)
    }
  }
}

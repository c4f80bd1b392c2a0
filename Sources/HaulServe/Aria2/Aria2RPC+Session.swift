import Foundation
import HaulCore

extension Aria2RPC {
  /// `aria2.getVersion`: aria2's shape with haul's version, and the features haul has of
  /// aria2's list.
  func getVersion() -> Any {
    ["version": "haul \(HaulVersion.current)", "enabledFeatures": ["HTTPS", "Message Digest"]]
  }

  /// `aria2.purgeDownloadResult`: forgets every job that ended (its files stay).
  func purgeDownloadResult() -> Any {
    for job in lists().stopped {
      forget(job["id"] as? String ?? "")
    }
    return "OK"
  }

  /// `aria2.removeDownloadResult(gid)`: forgets a job that ended (its files stay).
  func removeDownloadResult(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    guard let state = try? job(gid)["state"] as? String, Self.stopped.contains(state) else {
      throw Aria2Error("Could not remove download result of GID#\(gid)")
    }
    guard forget(gid) else { throw Aria2Error("Could not remove download result of GID#\(gid)") }
    return "OK"
  }

  /// `aria2.shutdown`, `forceShutdown`: the daemon stops as on SIGTERM (running transfers
  /// keep their partial files, every job is in the journal for the next start).
  func shutdown() -> Any {
    onShutdown()
    return "OK"
  }

  /// `system.multicall([{methodName, params}, ...])`: each call answered in order, a result
  /// wrapped in a list, an error as its error object; each call carries its own token.
  func multicall(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let calls = try params.list(0)
    return calls.map { item -> Any in
      guard let call = item as? [String: Any], let name = call["methodName"] as? String else {
        return Aria2Error("system.multicall expected struct.").object
      }
      guard name != "system.multicall" else {
        return Aria2Error("Recursive system.multicall forbidden.").object
      }
      let arguments = call["params"] as? [Any] ?? []
      switch self.call(name, arguments) {
      case .success(let value): return [value]
      case .failure(let error): return error.object
      }
    }
  }

  /// Forgets `gid`: a job just removed is forgotten once its run has ended (its transfer
  /// stopping keeps its partial file), which takes moments; waits at most `patience`.
  @discardableResult
  private func forget(_ gid: String, patience: Duration = .seconds(5)) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + patience
    while true {
      do throws(ServiceError) {
        try daemon.forget(gid)
        break
      } catch {
        guard error.code == .conflict, clock.now < deadline else { return false }
        usleep(20_000)
      }
    }
    state.withLock { state in
      state.downloads[gid] = nil
      state.options[gid] = nil
    }
    return true
  }
}

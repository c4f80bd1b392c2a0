import Foundation

extension Aria2RPC {
  /// `aria2.getOption(gid)`: the global options under the download's own, with what the
  /// job itself holds (its directory, file, digest, headers, segments and rate cap), which
  /// outlives a restart of the daemon.
  func getOption(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    let job = try job(gid)
    var values = globalValues()
    values.merge(state.withLock { $0.options[gid] }?.values ?? [:]) { _, given in given }
    values["dir"] = job["output"] as? String ?? ""
    if let file = download(gid, output: values["dir"] ?? "").files.first {
      values["out"] = file.path
      if let checksum = file.checksum { values["checksum"] = checksum }
      if !file.headers.isEmpty { values["header"] = file.headers.joined(separator: "\n") }
    }
    let options = job["options"] as? [String: Any] ?? [:]
    if let segments = options["segments"] as? String { values["split"] = segments }
    if let rate = options["max-rate"] as? String { values["max-download-limit"] = rate }
    return values
  }

  /// `aria2.changeOption(gid, options)`: `max-download-limit`, `split` and
  /// `min-split-size` change the job's options (an active job's run restarts with them, its
  /// partial file resuming); the file's place, digest and headers are the job's manifest
  /// and cannot change; the rest is kept and reported back.
  func changeOption(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    let changes = try Aria2Options(params.object(1))
    let state = try job(gid)["state"] as? String ?? ""
    for name in ["dir", "out", "checksum", "header"] where changes[name] != nil {
      throw Aria2Error("haul cannot change option '--\(name)' of a download that was added")
    }
    let options = changes.jobOptions
    if !options.values.isEmpty, !Self.stopped.contains(state) {
      try perform(gid) { (gid) throws(ServiceError) in
        _ = try daemon.modify(gid, position: nil, options: options)
      }
    }
    self.state.withLock { state in
      state.options[gid] = (state.options[gid] ?? Aria2Options()).merging(changes)
    }
    return "OK"
  }

  /// `aria2.getGlobalOption`.
  func getGlobalOption() -> Any { globalValues() }

  /// `aria2.changeGlobalOption(options)`: kept as the defaults of later `addUri` calls
  /// (`dir` must lie in a root); haul's daemon-wide bounds (`-j`, `--max-rate`) are its
  /// command line's and do not change.
  func changeGlobalOption(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let changes = try Aria2Options(params.object(0))
    if let dir = changes["dir"] {
      do throws(ServiceError) {
        _ = try daemon.roots.resolve(dir)
      } catch {
        throw Aria2Error(error.message)
      }
    }
    state.withLock { $0.global = $0.global.merging(changes) }
    return "OK"
  }

  /// The global options: what haul does by default, under those changed.
  func globalValues() -> [String: String] {
    var values: [String: String] = [
      "dir": daemon.roots.paths.first ?? "", "max-concurrent-downloads": "1",
      "max-overall-download-limit": "0", "max-download-limit": "0", "split": "1",
      "continue": "true", "allow-overwrite": "false", "auto-file-renaming": "false",
      "pause": "false", "max-connection-per-server": "1", "min-split-size": "8388608",
    ]
    values.merge(state.withLock { $0.global.values }) { _, new in new }
    return values
  }
}

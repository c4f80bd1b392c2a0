import Foundation

extension Aria2RPC {
  /// The job of GID `gid`, or aria2's error for an unknown GID.
  func job(_ gid: String) throws(Aria2Error) -> [String: Any] {
    do throws(ServiceError) {
      return try daemon.job(gid)
    } catch {
      throw .service(error, gid: gid)
    }
  }

  /// The files and sources of GID `gid`'s download, read once from its manifest.
  func download(_ gid: String, output: String) -> Aria2Download {
    if let known = state.withLock({ $0.downloads[gid] }) { return known }
    guard let manifest = try? daemon.manifestPath(of: gid) else {
      return Aria2Download(files: [])
    }
    let download = Aria2Download.read(manifest: manifest, output: output)
    state.withLock { $0.downloads[gid] = download }
    return download
  }

  /// The status view of `job` (as the daemon answers a job). `keys` are those asked for:
  /// the first failure is read from the journal only when it is shown.
  func status(_ job: [String: Any], keys: [String] = []) -> Aria2Status {
    let gid = job["id"] as? String ?? ""
    var failure: (String, String)?
    if job["state"] as? String == "error",
      keys.isEmpty || keys.contains("errorCode") || keys.contains("errorMessage")
    {
      let first =
        (job["failures"] as? [Any])?.first
        ?? (try? daemon.entries(gid, status: .failed, offset: 0, limit: 1))?.first.map {
          JSONText.object($0)
        }
      if let entry = first as? [String: Any] {
        let error = entry["error"] as? [String: Any]
        let code = error?["code"] as? String ?? entry["code"] as? String ?? "io"
        failure = (code, error?["message"] as? String ?? entry["message"] as? String ?? code)
      }
    }
    let needsFiles = keys.isEmpty || !Set(keys).isDisjoint(with: Self.fileKeys)
    return Aria2Status(
      job: job,
      download: needsFiles
        ? download(gid, output: job["output"] as? String ?? "") : .init(files: []),
      live: job["state"] as? String == "active" ? daemon.liveSample(of: gid) : nil,
      failure: failure)
  }

  /// The keys whose values come from the download's files.
  static let fileKeys: Set<String> = [
    "files", "totalLength", "completedLength", "numPieces", "bitfield",
  ]

  /// Every job in queue order, split as aria2 lists its downloads: active, waiting (waiting
  /// and paused ones, in queue order, as in aria2's waiting queue) and stopped (in the
  /// order they ended).
  func lists() -> (active: [[String: Any]], waiting: [[String: Any]], stopped: [[String: Any]]) {
    var active: [[String: Any]] = []
    var waiting: [[String: Any]] = []
    var stopped: [(ended: String, order: Int, job: [String: Any])] = []
    for (order, job) in daemon.listJobs().enumerated() {
      switch job["state"] as? String {
      case "active": active.append(job)
      case "waiting", "paused": waiting.append(job)
      default: stopped.append((job["ended"] as? String ?? "", order, job))
      }
    }
    stopped.sort { ($0.ended, $0.order) < ($1.ended, $1.order) }
    return (active, waiting, stopped.map(\.job))
  }
}

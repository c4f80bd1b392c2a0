import HaulCore

extension Daemon {
  /// The manifest file of job `id`, which the daemon keeps while it lists the job: for views
  /// that show a job's entries before they end (the aria2 interface's files and URIs).
  func manifestPath(of id: String) throws(ServiceError) -> String {
    try core.withLock { (core) throws(ServiceError) -> String in
      guard let record = core.jobs[id] else { throw Self.notFound(id) }
      return record.manifest
    }
  }

  /// The latest progress sample of job `id`'s run and the bytes the job had moved before
  /// it, while it runs: what a view shows of a transfer in flight (its length once the
  /// answer gave it), which the job object sums away.
  func liveSample(of id: String) -> (snapshot: ProgressSnapshot?, bytesBefore: Int64)? {
    core.withLock { core in
      core.live[id].map { ($0.snapshot, $0.bytesBefore) }
    }
  }

  /// The daemon's roots, where a client's output directory must lie.
  public var roots: Roots { configuration.roots }
}

extension Aria2RPC {
  /// `aria2.remove(gid)`, `forceRemove`: cancels the job (its files and partial files stay).
  func remove(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    guard let state = try job(gid)["state"] as? String, !Self.stopped.contains(state) else {
      throw Aria2Error("Active Download not found for GID#\(gid)")
    }
    try perform(gid) { (gid) throws(ServiceError) in _ = try daemon.cancel(gid) }
    return gid
  }

  /// `aria2.pause(gid)`, `forcePause`: pauses an active or waiting job; its running
  /// transfer stops keeping its partial file (haul has no gentler pause to tell apart).
  func pause(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    guard let state = try job(gid)["state"] as? String, state == "active" || state == "waiting"
    else { throw Aria2Error("GID#\(gid) cannot be paused now") }
    try perform(gid) { (gid) throws(ServiceError) in _ = try daemon.pause(gid) }
    return gid
  }

  /// `aria2.unpause(gid)`: puts a paused job back in the queue.
  func unpause(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    guard try job(gid)["state"] as? String == "paused" else {
      throw Aria2Error("GID#\(gid) cannot be unpaused now")
    }
    try perform(gid) { (gid) throws(ServiceError) in _ = try daemon.resume(gid) }
    return gid
  }

  /// `aria2.pauseAll`, `forcePauseAll`: pauses every active and waiting job.
  func pauseAll() -> Any {
    for job in daemon.listJobs() where ["active", "waiting"].contains(job["state"] as? String) {
      _ = try? daemon.pause(job["id"] as? String ?? "")
    }
    return "OK"
  }

  /// `aria2.unpauseAll`: resumes every paused job.
  func unpauseAll() -> Any {
    for job in daemon.listJobs() where job["state"] as? String == "paused" {
      _ = try? daemon.resume(job["id"] as? String ?? "")
    }
    return "OK"
  }

  /// `aria2.changePosition(gid, pos, how)`: moves a job within aria2's waiting queue (the
  /// waiting and paused jobs); answers its new place there.
  func changePosition(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    let offset = try params.integer(1)
    let how = try params.string(2)
    guard ["POS_SET", "POS_CUR", "POS_END"].contains(how) else {
      throw Aria2Error("Illegal argument.")
    }
    return try move(gid, offset, how: how)
  }

  /// Moves `gid` in the waiting queue as aria2 does (the place clamped to the queue) and
  /// the job to the matching place of haul's queue, which holds every job; returns the
  /// place in the waiting queue.
  func move(_ gid: String, _ offset: Int, how: String) throws(Aria2Error) -> Int {
    let jobs = daemon.listJobs()
    let queue = jobs.compactMap { $0["id"] as? String }
    let waiting = jobs.filter { ["waiting", "paused"].contains($0["state"] as? String) }
      .compactMap { $0["id"] as? String }
    guard let current = waiting.firstIndex(of: gid) else {
      _ = try job(gid)
      throw Aria2Error("GID#\(gid) not found in the waiting queue.")
    }
    let last = waiting.count - 1
    let wanted =
      switch how {
      case "POS_SET": offset
      case "POS_CUR": current + offset
      default: last + offset
      }
    let place = min(max(wanted, 0), last)
    guard place != current else { return place }
    var reordered = waiting
    reordered.remove(at: current)
    reordered.insert(gid, at: place)
    let others = queue.filter { $0 != gid }
    let index =
      place == 0
      ? others.firstIndex(of: reordered[1]) ?? 0
      : (others.firstIndex(of: reordered[place - 1]) ?? others.count - 1) + 1
    try perform(gid) { (gid) throws(ServiceError) in
      _ = try daemon.modify(gid, position: index, options: nil)
    }
    return place
  }

  /// Runs a daemon call on `gid`, its refusal as aria2's error.
  func perform(_ gid: String, _ call: (String) throws(ServiceError) -> Void) throws(Aria2Error) {
    do throws(ServiceError) {
      try call(gid)
    } catch {
      throw .service(error, gid: gid)
    }
  }

  /// The states of a download that stopped.
  static let stopped: Set<String> = ["complete", "error", "removed"]
}

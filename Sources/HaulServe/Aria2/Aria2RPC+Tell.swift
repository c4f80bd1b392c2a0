extension Aria2RPC {
  /// `aria2.tellStatus(gid, keys?)`.
  func tellStatus(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    let keys = try params.strings(1)
    return status(try job(gid), keys: keys).object(keys: keys)
  }

  /// `aria2.getUris(gid)`: the first file's sources.
  func getUris(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let status = status(try job(try params.gid(0)))
    return status.download.files.first.map { status.uriObjects($0) } ?? []
  }

  /// `aria2.getFiles(gid)`.
  func getFiles(_ params: Aria2Params) throws(Aria2Error) -> Any {
    status(try job(try params.gid(0))).fileObjects()
  }

  /// `aria2.getServers(gid)`: for an active download, the source it uses; haul fetches a
  /// file from one source at a time (segments share it).
  func getServers(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let gid = try params.gid(0)
    let job = try job(gid)
    guard job["state"] as? String == "active" else {
      throw Aria2Error("No active download for GID#\(gid)")
    }
    let status = status(job)
    let speed = status.object(keys: ["downloadSpeed"])["downloadSpeed"] ?? "0"
    return status.download.files.enumerated().map { index, file in
      let uri = file.uris.first ?? ""
      return [
        "index": String(index + 1),
        "servers": [["uri": uri, "currentUri": uri, "downloadSpeed": speed]],
      ] as [String: Any]
    }
  }

  /// `aria2.tellActive(keys?)`.
  func tellActive(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let keys = try params.strings(0)
    return lists().active.map { status($0, keys: keys).object(keys: keys) }
  }

  /// `aria2.tellWaiting(offset, num, keys?)`: waiting and paused downloads, queue order.
  func tellWaiting(_ params: Aria2Params) throws(Aria2Error) -> Any {
    try page(lists().waiting, params)
  }

  /// `aria2.tellStopped(offset, num, keys?)`: downloads that ended, oldest first.
  func tellStopped(_ params: Aria2Params) throws(Aria2Error) -> Any {
    try page(lists().stopped, params)
  }

  /// `num` downloads of `jobs` from `offset`, with aria2's reading of a negative offset:
  /// counted from the end, and the downloads answered last first.
  private func page(_ jobs: [[String: Any]], _ params: Aria2Params) throws(Aria2Error) -> Any {
    let offset = try params.integer(0)
    let num = try params.integer(1)
    let keys = try params.strings(2)
    let range = Self.pageRange(offset: offset, num: num, count: jobs.count)
    var page = jobs[range].map { status($0, keys: keys).object(keys: keys) }
    if offset < 0 { page.reverse() }
    return page
  }

  /// aria2's `getPaginationRange`.
  static func pageRange(offset: Int, num: Int, count: Int) -> Range<Int> {
    guard num > 0 else { return 0..<0 }
    var start = offset
    var length = num
    if offset < 0 {
      let from = offset + count
      guard from >= 0 else { return 0..<0 }
      start = from - (num - 1)
      if start < 0 {
        start = 0
        length = from + 1
      }
    } else if offset >= count {
      return 0..<0
    }
    return start..<min(count, start + length)
  }

  /// `aria2.getGlobalStat`.
  func getGlobalStat() -> Any {
    let (active, waiting, stopped) = lists()
    let speed = active.reduce(0.0) { $0 + (($1["rate"] as? Double) ?? 0) }
    return [
      "downloadSpeed": String(Int64(max(0, speed))), "uploadSpeed": "0",
      "numActive": String(active.count), "numWaiting": String(waiting.count),
      "numStopped": String(stopped.count), "numStoppedTotal": String(stopped.count),
    ]
  }
}

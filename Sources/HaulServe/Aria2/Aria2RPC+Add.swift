import Foundation

extension Aria2RPC {
  /// `aria2.addUri(uris, options?, position?)`: one job of one entry whose sources are the
  /// URIs (the first its `url`, the others its mirrors), written as a manifest line and
  /// checked as any job is: `dir` must lie in a root, `out` obeys haul's path rules (no
  /// `..`, unlike aria2, whose `out` may climb out of `dir`). Answers the GID.
  func addUri(_ params: Aria2Params) throws(Aria2Error) -> Any {
    let list = try params.list(0)
    let uris = list.compactMap { $0 as? String }
    guard !list.isEmpty else { throw Aria2Error("URI is not provided.") }
    guard uris.count == list.count, uris.allSatisfy({ !$0.isEmpty }) else {
      throw Aria2Error("No URI to download.")
    }
    let given = try Aria2Options(params.optionalObject(1))
    let position = try params.optionalInteger(2)
    if let position, position < 0 {
      throw Aria2Error("Position must be greater than or equal to 0.")
    }
    let options = state.withLock { $0.global }.merging(given)

    var line: [String: Any] = ["url": uris[0]]
    if uris.count > 1 { line["mirrors"] = Array(uris.dropFirst()) }
    if let out = options["out"] { line["path"] = out }
    if let (field, hex) = options.checksum { line[field] = hex }
    let headers = options.headers
    if !headers.isEmpty { line["headers"] = headers }
    let submission = JobSubmission(
      source: .text(JSONText.encode(line) + "\n"), output: options["dir"],
      options: options.jobOptions.withoutCleared, paused: options.paused)
    let gid: String
    do throws(ServiceError) {
      gid = try daemon.submit(submission)["id"] as? String ?? ""
    } catch {
      throw Aria2Error(error.message)
    }
    state.withLock { $0.options[gid] = given }
    if let position { _ = try? move(gid, position, how: "POS_SET") }
    return gid
  }
}

extension JobOptions {
  /// These options without the flags set to false, which only clear an option when merged.
  var withoutCleared: JobOptions {
    JobOptions(values.filter { $0.value != .flag(false) })
  }
}

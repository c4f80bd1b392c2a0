import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// docs/behaviour.md, "Crash safety": `kill -9` at any moment loses at most the bytes not yet written, and the
/// next run resumes from exactly what is on disk, never from a state that points past it.
///
/// A large file is served slowly; haul is killed once the server has sent K bytes of it, for
/// several K, and rerun each time. Each rerun must ask for `Range: bytes=L-` where L is the
/// partial file's length on disk before the rerun, and L cannot exceed what the server had
/// sent when haul died. The final file must hash exactly.
@Suite("Crash torture: SIGKILL at byte K, rerun, exact bytes")
struct CrashTortureTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-crash")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// The requests for `path` made since the `after`-th request to the server.
  func requests(_ path: String, after: Int) -> [RequestRecord] {
    server.requests.dropFirst(after).filter { $0.path == path }
  }

  /// The start of a request's `Range: bytes=N-` (0 without one).
  func rangeStart(_ record: RequestRecord?) -> Int64 {
    guard let range = record?.value(for: "Range") else { return 0 }
    return Int64(range.dropFirst("bytes=".count).split(separator: "-").first ?? "") ?? -1
  }

  /// Starts haul on `manifest.jsonl` and SIGKILLs it once the server has sent the body of
  /// `path` up to file position `position` and haul has written some of it (the server's
  /// count runs ahead of haul by what the socket buffers hold); returns the position the
  /// server had sent when haul had died.
  func runAndKill(
    _ arguments: [String], path: String, at position: Int64, resumedFrom start: Int64,
    partial: String
  ) async throws -> Int64 {
    let baseline = server.bodyBytesSent(path: path)
    let running = try HaulBinary.start(arguments, in: directory)
    let server = server
    await whenOffPool(
      {
        !running.isRunning
          || (start + server.bodyBytesSent(path: path) - baseline >= position
            && fileSize(partial) > start)
      }, timeout: 15,
      then: { if running.isRunning { running.send(SIGKILL) } })
    let result = try await running.finish(timeout: 20)
    #expect(result.status == SIGKILL, "haul ended before it was killed: \(result.stderr)")
    return start + server.bodyBytesSent(path: path) - baseline
  }

  /// With `--fsync` the resume state is written on the finisher's thread and may land
  /// after the body's first write: a kill before it leaves a partial without state, which
  /// the rerun starts over; a state that did land must resume exactly.
  @Test(arguments: transports, [false, true])
  func killed_at_several_byte_positions_each_rerun_resumes_from_the_bytes_on_disk(
    transport: String, fsync: Bool
  ) async throws {
    defer { cleanUp() }
    let size: Int64 = 4 << 20
    let lines = [
      try dataLine(server, "torture", size: size, seed: 70, options: ["drip": "\(2 << 20)"])
    ]
    try writeManifest(lines, in: directory)
    let arguments = runArguments(transport, ["--retries", "0"] + (fsync ? ["--fsync"] : []))
    let partial = directory.file("out/torture.bin.haul-partial")
    let state = directory.file("out/torture.bin.haul-state")
    let path = "/data/torture"

    var durable: Int64 = 0
    let positions: [Int64] = [512 << 10, 3 << 19 + 12_345, 5 << 19]
    for position in positions {
      let before = server.requests.count
      if !exists(state) { durable = 0 }
      let sentAtDeath = try await runAndKill(
        arguments, path: path, at: position, resumedFrom: durable, partial: partial)
      // This run resumed exactly from what the last one left on disk.
      #expect(rangeStart(requests(path, after: before).first) == durable)
      #expect(fsync || exists(state), "the state is written before the body's first write")
      let length = fileSize(partial)
      #expect(length <= sentAtDeath, "the partial holds bytes the server never sent")
      #expect(length >= durable)
      #expect(holdsContent(partial, seed: 70, size: length))
      #expect(!exists(directory.file("out/torture.bin")))
      durable = length
    }
    if !exists(state) { durable = 0 }
    let before = server.requests.count
    let run = try FaultRun(try await HaulBinary.run(arguments, in: directory), reportIn: directory)
    #expect(run.result.status == 0, "\(run.result.stderr)")
    #expect(rangeStart(requests(path, after: before).first) == durable)
    #expect(fsync || durable > 0)
    #expect(run.transfers[1]?["bytes"] as? Int == Int(size - durable))
    #expect(holdsContent(directory.file("out/torture.bin"), seed: 70, size: size))
    #expect(!exists(partial))
    #expect(!exists(directory.file("out/torture.bin.haul-state")))
  }

  /// What is done to the files between the killed run and the rerun.
  enum Tampering: String, CaseIterable, Sendable {
    /// The state file's bytes are flipped.
    case corruptState
    /// The state file is cut in half.
    case truncatedState
    /// The manifest now names another URL for the same path.
    case otherURL
    /// The manifest now names an expected digest the partial was not fetched for.
    case otherDigest
  }

  @Test(arguments: transports, Tampering.allCases)
  func a_partial_whose_state_is_damaged_or_belongs_elsewhere_starts_over(
    transport: String, tampering: Tampering
  ) async throws {
    defer { cleanUp() }
    let size: Int64 = 1 << 20
    // 512 KiB/s: the kill at 300 KB must land before the body's end, which leaves about 1.4 s
    // to see it in, room enough for a loaded machine.
    let options = ["drip": "\(1 << 19)"]
    let first = try dataLine(
      server, "tampered", size: size, seed: 71, options: options, declareDigest: false)
    try writeManifest([first], in: directory)
    let arguments = runArguments(transport, ["--retries", "0"])
    let state = directory.file("out/tampered.bin.haul-state")
    let partial = directory.file("out/tampered.bin.haul-partial")

    _ = try await runAndKill(
      arguments, path: "/data/tampered", at: 300_000, resumedFrom: 0, partial: partial)
    #expect(fileSize(partial) > 0)
    let saved = try Data(contentsOf: URL(fileURLWithPath: state))
    #expect(ResumeState.decode(Array(saved)) != nil)

    switch tampering {
    case .corruptState:
      var bytes = Array(saved)
      bytes[bytes.count / 3] ^= 0x20
      try Data(bytes).write(to: URL(fileURLWithPath: state))
    case .truncatedState:
      try saved.prefix(saved.count / 2).write(to: URL(fileURLWithPath: state))
    case .otherURL:
      try writeManifest(
        [
          try manifestLine([
            "url": server.dataURL("tampered", size: size, seed: 71, options: ["v": "2"])
              .absoluteString, "path": "tampered.bin",
          ])
        ], in: directory)
    case .otherDigest:
      try writeManifest(
        [try dataLine(server, "tampered", size: size, seed: 71, options: options)], in: directory)
    }

    let before = server.requests.count
    let run = try FaultRun(try await HaulBinary.run(arguments, in: directory), reportIn: directory)
    #expect(run.result.status == 0, "\(run.result.stderr)")
    let rerun = server.requests.dropFirst(before).filter { $0.path == "/data/tampered" }
    #expect(rerun.count == 1)
    #expect(rerun.first?.value(for: "Range") == nil, "resumed a partial it could not trust")
    #expect(run.transfers[1]?["bytes"] as? Int == Int(size))
    #expect(holdsContent(directory.file("out/tampered.bin"), seed: 71, size: size))
  }

  @Test(arguments: transports)
  func a_killed_segmented_download_never_records_a_segment_past_its_bytes(transport: String)
    async throws
  {
    defer { cleanUp() }
    let size: Int64 = 2 << 20
    let lines = [
      try dataLine(server, "segmented", size: size, seed: 72, options: ["drip": "\(256 << 10)"])
    ]
    try writeManifest(lines, in: directory)
    let arguments = runArguments(
      transport, ["--segments", "4", "--min-segment-size", "512K", "--retries", "0"])
    let partial = directory.file("out/segmented.bin.haul-partial")
    let stateFile = directory.file("out/segmented.bin.haul-state")

    // Four segments at 256 KiB/s each: killed after about 1.5 s, once state was saved.
    _ = try await runAndKill(
      arguments, path: "/data/segmented", at: 3 << 19, resumedFrom: 0, partial: partial)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: stateFile))
    let state = try #require(ResumeState.decode(Array(bytes)))
    let segments = try #require(state.segments)
    #expect(segments.count == 4)
    #expect(segments.contains { $0.next > $0.start }, "no progress was saved")
    // Every byte a segment claims is on disk and correct.
    let fd = open(partial, O_RDONLY)
    #expect(fd >= 0)
    defer { close(fd) }
    for segment in segments where segment.next > segment.start {
      let count = Int(segment.next - segment.start)
      var buffer = [UInt8](repeating: 0, count: count)
      let read = pread(fd, &buffer, count, off_t(segment.start))
      #expect(read == count, "segment \(segment) points past the bytes on disk")
      #expect(buffer == TestContent.bytes(seed: 72, count: count, offset: segment.start))
    }

    let run = try FaultRun(try await HaulBinary.run(arguments, in: directory), reportIn: directory)
    #expect(run.result.status == 0, "\(run.result.stderr)")
    #expect(holdsContent(directory.file("out/segmented.bin"), seed: 72, size: size))
    #expect(!exists(partial))
    #expect(!exists(stateFile), "the resume state outlived the finished file")
  }
}

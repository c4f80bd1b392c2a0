import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Uploads through the IETF resumable upload draft to the fault server's draft server
/// (`FaultServer+Resumable.swift`) through the built binary: the `104` announces the upload
/// resource, a connection dropped after some bytes resumes from the server's offset, a
/// server without `104` or one that forgot the upload gets a new one; URLSession, which cannot
/// see interim responses, is refused at the start.
@Suite("Resumable uploads: the IETF draft against the fault server")
struct ResumableIETFTests {
  static let chunk: Int64 = 4 << 20

  func upload(
    _ server: FaultServer, name: String, options: String = "", size: Int64, seed: UInt64,
    extra: [String] = []
  ) async throws -> (FaultRun, String) {
    let directory = try TemporaryDirectory(prefix: "haul-ietf")
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    let digest = try TestContent.writeFile(
      at: directory.file("out/\(name).bin"), seed: seed, count: size)
    let manifest = try writeManifest(
      [
        try manifestLine([
          "url": server.url("/rufh/\(name)" + (options.isEmpty ? "" : "?" + options))
            .absoluteString,
          "op": "upload", "path": "\(name).bin", "resumable": "ietf",
        ])
      ], in: directory)
    let run = try FaultRun(
      try await HaulBinary.run(
        ["run", manifest, "-o", "out", "--report", "report.json", "--events"] + extra,
        in: directory), reportIn: directory)
    return (run, digest)
  }

  func methods(_ server: FaultServer) -> [String] {
    server.requests(pathPrefix: "/rufh/").map(\.method)
  }

  @Test func an_upload_goes_as_a_creation_with_its_first_chunk_and_patches() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let size = 2 * Self.chunk + 7
    let (run, digest) = try await upload(server, name: "plain", size: size, seed: 41)

    #expect(run.result.status == 0, "\(run.describe(1))")
    #expect(server.upload(named: "plain")?.sha256 == digest)
    #expect(server.upload(named: "plain")?.length == size)
    #expect(methods(server) == ["POST", "PATCH", "PATCH"])
    let last = try #require(server.requests(pathPrefix: "/rufh/").last)
    #expect(last.headers.value(for: "Upload-Complete") == "?1")
    #expect(last.headers.value(for: "Upload-Offset") == "\(2 * Self.chunk)")
    #expect(run.transfers[1]?["bytes"] as? NSNumber == NSNumber(value: size))
  }

  @Test func a_creation_cut_after_its_104_resumes_from_the_servers_offset() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let size = 2 * Self.chunk
    let (run, digest) = try await upload(
      server, name: "cut", options: "dropCreate=1000000&times=1", size: size, seed: 42)

    #expect(run.result.status == 0, "\(run.describe(1))")
    #expect(server.upload(named: "cut")?.sha256 == digest)
    #expect(methods(server) == ["POST", "HEAD", "PATCH", "PATCH"], "one upload, resumed")
    let resumed = try #require(server.requests(pathPrefix: "/rufh/u/").dropFirst().first)
    #expect(resumed.headers.value(for: "Upload-Offset") == "1000000")
  }

  @Test func a_creation_cut_without_a_104_starts_a_new_upload() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let (run, digest) = try await upload(
      server, name: "silent", options: "dropCreate=1000000&times=1&interim=0",
      size: Self.chunk + 3, seed: 43)

    #expect(run.result.status == 0, "\(run.describe(1))")
    #expect(server.upload(named: "silent")?.sha256 == digest)
    #expect(methods(server) == ["POST", "POST", "PATCH"])
  }

  @Test func an_append_cut_after_some_bytes_resumes_from_the_servers_offset() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let (run, digest) = try await upload(
      server, name: "append", options: "dropAppend=300000&times=1", size: 3 * Self.chunk,
      seed: 44)

    #expect(run.result.status == 0, "\(run.describe(1))")
    #expect(server.upload(named: "append")?.sha256 == digest)
    #expect(methods(server) == ["POST", "PATCH", "HEAD", "PATCH", "PATCH"])
    let offsets = server.requests(pathPrefix: "/rufh/u/").filter { $0.method == "PATCH" }
      .map { $0.headers.value(for: "Upload-Offset") ?? "" }
    #expect(offsets == ["\(Self.chunk)", "\(Self.chunk + 300_000)", "\(2 * Self.chunk + 300_000)"])
  }

  @Test func a_killed_upload_resumes_from_the_last_byte_the_server_kept() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let directory = try TemporaryDirectory(prefix: "haul-ietf-kill")
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    let size = 10 * Self.chunk
    let digest = try TestContent.writeFile(
      at: directory.file("out/big.bin"), seed: 48, count: size)
    let manifest = try writeManifest(
      [
        try manifestLine([
          "url": server.url("/rufh/killed").absoluteString, "op": "upload", "path": "big.bin",
          "resumable": "ietf",
        ])
      ], in: directory)
    let arguments = ["run", manifest, "-o", "out", "--report", "report.json", "-q"]
    let running = try HaulBinary.start(arguments + ["--max-rate", "8M"], in: directory)
    await whenOffPool(
      { server.requests(pathPrefix: "/rufh/u/").count >= 3 || !running.isRunning },
      timeout: 60, every: 0.02, then: { running.send(SIGKILL) })
    let killed = try await running.finish(timeout: 20)
    #expect(killed.status == SIGKILL, "haul ended before it was killed: \(killed.stderr)")
    let before = server.requests(pathPrefix: "/rufh/").count

    let rerun = try FaultRun(
      try await HaulBinary.run(arguments, in: directory), reportIn: directory)

    #expect(rerun.result.status == 0, "\(rerun.describe(1))")
    #expect(server.upload(named: "killed")?.sha256 == digest)
    let after = Array(server.requests(pathPrefix: "/rufh/").dropFirst(before))
    #expect(after.first?.method == "HEAD", "the rerun asks for the offset first")
    let resumedAt = try #require(
      after.first { $0.method == "PATCH" }?.headers.value(for: "Upload-Offset").flatMap {
        Int64($0)
      })
    #expect(resumedAt >= 2 * Self.chunk, "the bytes of the cut append were kept: \(resumedAt)")
    let bytes = (rerun.transfers[1]?["bytes"] as? NSNumber)?.int64Value
    #expect(bytes == size - resumedAt, "only what the server lacked")
  }

  @Test func a_server_that_forgot_the_upload_gets_a_new_one() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let (run, digest) = try await upload(
      server, name: "gone", options: "gone=1&times=1", size: Self.chunk + 5, seed: 45)

    #expect(run.result.status == 0, "\(run.describe(1))")
    #expect(server.upload(named: "gone")?.sha256 == digest)
    #expect(methods(server) == ["POST", "PATCH", "POST", "PATCH"])
  }

  @Test func appends_stay_within_the_servers_max_append_size() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let (run, digest) = try await upload(
      server, name: "limited", options: "maxAppend=1500000", size: 2 * Self.chunk, seed: 46)

    #expect(run.result.status == 0, "\(run.describe(1))")
    #expect(server.upload(named: "limited")?.sha256 == digest)
    let statuses = server.requests(pathPrefix: "/rufh/").map { $0.status ?? 0 }
    #expect(statuses.first == 413, "the first chunk was over the limit: \(statuses)")
    #expect(statuses.dropFirst().allSatisfy { $0 < 300 }, "\(statuses)")
  }

  @Test func the_entrys_headers_go_to_the_creation_origin_only() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let other = try FaultServer.started(host: "127.0.0.2")
    defer { other.stop() }
    let directory = try TemporaryDirectory(prefix: "haul-ietf-origin")
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    _ = try TestContent.writeFile(at: directory.file("out/a.bin"), seed: 47, count: Self.chunk + 1)
    let target = server.url(
      "/rufh/a?locationOrigin=\(FaultServer.percentEncoded(other.origin))")
    let manifest = try writeManifest(
      [
        try manifestLine([
          "url": target.absoluteString, "op": "upload", "path": "a.bin", "resumable": "ietf",
          "headers": ["Authorization": "Bearer entry-secret"],
        ])
      ], in: directory)

    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--retries", "0", "--header", "X-Run: run-secret"],
      in: directory)

    #expect(run.status == 1, "the other server knows no such upload: \(run.stderr)")
    let created = server.requests(pathPrefix: "/rufh/a")
    #expect(!created.isEmpty)
    #expect(created.allSatisfy { $0.headers.value(for: "Authorization") == "Bearer entry-secret" })
    let elsewhere = other.requests(pathPrefix: "/rufh/u/")
    #expect(!elsewhere.isEmpty, "the upload resource was asked on the other origin")
    for request in elsewhere {
      #expect(request.headers.value(for: "Authorization") == nil, "\(request.headers)")
      #expect(request.headers.value(for: "X-Run") == nil, "\(request.headers)")
      #expect(request.headers.value(for: "Upload-Draft-Interop-Version") == "8")
    }
  }

  @Test func urlsession_is_refused_at_the_start() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-ietf-urlsession")
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    _ = try TestContent.writeFile(at: directory.file("out/a.bin"), seed: 1, count: 10)
    let manifest = try writeManifest(
      [
        try manifestLine([
          "url": "http://127.0.0.1:9/rufh/a", "op": "upload", "path": "a.bin",
          "resumable": "ietf",
        ])
      ], in: directory)
    let line = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--transport", "urlsession"], in: directory)
    #expect(line.status == 2)
    #expect(line.stderr.contains("manifest.jsonl:1:"), "\(line.stderr)")
    #expect(line.stderr.contains("needs the curl transport"), "\(line.stderr)")
    let option = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--transport", "urlsession", "--resumable", "ietf"],
      in: directory)
    #expect(option.status == 2)
    #expect(option.stderr.contains("--resumable ietf needs --transport curl"), "\(option.stderr)")
  }

  @Test func an_unknown_protocol_is_a_usage_error_and_help_names_both() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-resumable-usage")
    defer { directory.remove() }
    let manifest = try writeManifest(["http://127.0.0.1:9/a"], in: directory)
    let run = try await HaulBinary.run(["run", manifest, "--resumable", "s3"], in: directory)
    #expect(run.status == 2)
    #expect(run.stderr.contains("--resumable must be tus or ietf, not 's3'"), "\(run.stderr)")
    let help = try await HaulBinary.run(["run", "--help"], in: directory)
    #expect(help.stdout.contains("--resumable PROTOCOL"), "\(help.stdout)")
    #expect(help.stdout.contains("tus or ietf"), "\(help.stdout)")
  }

  @Test func a_resumable_line_with_a_method_is_a_bad_line() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-ietf-method")
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    _ = try TestContent.writeFile(at: directory.file("out/a.bin"), seed: 1, count: 10)
    let manifest = try writeManifest(
      [
        "# uploads",
        try manifestLine([
          "url": "http://127.0.0.1:9/files/", "op": "upload", "path": "a.bin",
          "resumable": "tus", "method": "POST",
        ]),
      ], in: directory)
    let run = try await HaulBinary.run(["run", manifest, "-o", "out"], in: directory)
    #expect(run.status == 2)
    #expect(run.stderr.contains("manifest.jsonl:2:"), "\(run.stderr)")
  }
}

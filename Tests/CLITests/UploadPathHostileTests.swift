import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Uploads read their files through the output directory's descriptor (docs/behaviour.md,
/// "Local files"): a symlink planted in place of an upload's file, of a parent folder or of
/// a folder upload's folder that leads out of the output directory fails the entry with
/// `path_refused`, and nothing outside is read or sent; a link that stays inside is followed.
@Suite("Hostile paths: planted symlinks under uploads")
struct UploadPathHostileTests: PlantedLinkSuite {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-upload-path")
    server = try FaultServer.started()
  }

  func upload(_ name: String, path: String, folder: Bool = false) throws -> String {
    let url = server.url("/upload/\(name)" + (folder ? "/" : "")).absoluteString
    return try manifestLine(["op": "upload", "url": url, "path": path])
  }

  @Test(arguments: transports)
  func symlinks_leading_out_are_refused_and_nothing_outside_is_sent(transport: String)
    async throws
  {
    defer { cleanUp() }
    for folder in ["outside/folder/site", "out/site"] {
      try FileManager.default.createDirectory(
        atPath: directory.file(folder), withIntermediateDirectories: true)
    }
    try TestContent.writeFile(at: outside("secret.bin"), seed: 70, count: 5000)
    try TestContent.writeFile(at: outside("folder/inner.bin"), seed: 71, count: 5000)
    try TestContent.writeFile(at: outside("folder/site/a.bin"), seed: 72, count: 5000)
    try TestContent.writeFile(at: out("real.bin"), seed: 73, count: 5000)
    try plant("absolute.bin", to: outside("secret.bin"))
    try plant("relative.bin", to: "../outside/secret.bin")
    try plant("evil", to: outside("folder"))
    try plant("inside.bin", to: "site/../real.bin")
    try plant("away", to: outside("folder/site"))

    try writeManifest(
      [
        try upload("absolute", path: "absolute.bin"),
        try upload("relative", path: "relative.bin"),
        try upload("parent", path: "evil/inner.bin"),
        try upload("inside", path: "inside.bin"),
        try upload("away", path: "away/", folder: true),
      ], in: directory)
    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "2"]), in: directory),
      reportIn: directory)
    #expect(run.result.status == 1, "\(run.result.stderr)")

    for line in [1, 2, 3, 5] {
      #expect(run.code(line) == "path_refused", "\(run.describe(line))")
      #expect(run.retries(line).isEmpty, "\(run.describe(line))")
    }
    for name in ["absolute", "relative", "parent", "away"] {
      #expect(server.requests(pathPrefix: "/upload/\(name)").isEmpty, "\(name) was sent")
    }
    #expect(run.status(4) == "ok", "\(run.describe(4))")
    #expect(server.requests(pathPrefix: "/upload/inside").count == 1)
  }
}

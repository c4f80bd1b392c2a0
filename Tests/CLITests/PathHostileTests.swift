import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Symlinks planted in the output directory never lead haul outside it or through a link,
/// and finished files follow the umask.
@Suite("Hostile paths: planted symlinks and the umask")
struct PathHostileTests: PlantedLinkSuite {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-fault-path")
    server = try FaultServer.started()
  }

  func contents(_ path: String) -> String? {
    try? String(contentsOfFile: path, encoding: .utf8)
  }

  @Test(arguments: transports)
  func planted_symlinks_are_refused_or_replaced_never_written_through(transport: String)
    async throws
  {
    defer { cleanUp() }
    try FileManager.default.createDirectory(
      atPath: outside("folder"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    for name in ["partial", "destination", "state", "scratch"] {
      try "keep \(name)\n".write(toFile: outside(name), atomically: false, encoding: .utf8)
    }
    try plant("evil", to: outside("folder"))
    try plant("linked.bin.haul-partial", to: outside("partial"))
    try plant("dangling.bin.haul-partial", to: outside("created-through-link"))
    try plant("dest.bin", to: outside("destination"))
    try plant("stated.bin.haul-state", to: outside("state"))
    try plant("scratched.bin.haul-state.tmp", to: outside("scratch"))

    let lines = [
      try dataLine(server, "parent", size: 1000, seed: 60, path: "evil/parent.bin"),
      try dataLine(server, "linked", size: 1000, seed: 61),
      try dataLine(server, "dangling", size: 1000, seed: 62),
      try dataLine(server, "dest", size: 1000, seed: 63),
      try dataLine(server, "stated", size: 1000, seed: 64),
      try dataLine(server, "scratched", size: 1000, seed: 65),
    ]
    try writeManifest(lines, in: directory)
    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "2"]), in: directory),
      reportIn: directory)
    #expect(run.result.status == 1)

    // A parent folder or the partial file as a symlink: refused, nothing fetched.
    for line in [1, 2, 3] {
      #expect(run.code(line) == "path_refused", "\(run.describe(line))")
      #expect(run.retries(line).isEmpty)
    }
    for name in ["parent", "linked", "dangling"] {
      #expect(server.requests(pathPrefix: "/data/\(name)").isEmpty)
    }
    // The destination and the state file as symlinks: replaced by renames, never followed.
    for line in [4, 5] { #expect(run.status(line) == "ok", "\(run.describe(line))") }
    #expect(holdsContent(out("dest.bin"), seed: 63, size: 1000))
    #expect(FileStatus.isRegularFile(out("dest.bin")))
    #expect(holdsContent(out("stated.bin"), seed: 64, size: 1000))
    // The state's scratch file as a symlink: a small body that arrives whole needs no
    // resume state, so the link is never opened (and a larger one would be refused,
    // O_NOFOLLOW); either way nothing is written through it (checked below).
    #expect(run.status(6) == "ok", "\(run.describe(6))")
    #expect(holdsContent(out("scratched.bin"), seed: 65, size: 1000))

    // Nothing outside changed or appeared.
    for name in ["partial", "destination", "state", "scratch"] {
      #expect(contents(outside(name)) == "keep \(name)\n", "\(name) was written through")
    }
    #expect(!exists(outside("created-through-link")))
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside("folder")).isEmpty)
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: directory.file("outside")))
        == ["folder", "partial", "destination", "state", "scratch"])
  }

  @Test(arguments: transports)
  func finished_files_and_folders_follow_the_umask(transport: String) async throws {
    defer { cleanUp() }
    let lines = [try dataLine(server, "masked", size: 1000, seed: 66, path: "made/masked.bin")]
    try writeManifest(lines, in: directory)
    let result = try await runShell(
      "umask 027 && exec \"$HAUL\" "
        + runArguments(transport).map(shellQuoted).joined(
          separator: " "), in: directory)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(holdsContent(out("made/masked.bin"), seed: 66, size: 1000))
    #expect(mode(out("made/masked.bin")) == 0o640)
    #expect(mode(out("made")) == 0o750)
  }

  private func mode(_ path: String) -> mode_t {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0 }
    return info.st_mode & 0o7777
  }
}

extension FileStatus {
  /// Whether `path` is a regular file (a symlink is not).
  static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
  }
}

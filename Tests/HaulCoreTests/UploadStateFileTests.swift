import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// docs/behaviour.md, "What a run leaves in the folder": an upload's state stays in
/// `.haul/uploads/` while a resume needs it and goes with its upload, and the folders that
/// held only it go too.
@Suite("Upload state files: kept while needed, removed with their folders")
struct UploadStateFileTests {
  struct Sample: UploadState { var offset: Int }

  @Test func removing_the_last_state_removes_its_folders_and_no_other_state() throws {
    let directory = try TemporaryDirectory(prefix: "haul-upload-state")
    defer { directory.remove() }
    let first = UploadStateFile.path(directory: directory.path, key: "first")
    let second = UploadStateFile.path(directory: directory.path, key: "second")
    try Sample(offset: 1).write(to: first)
    try Sample(offset: 2).write(to: second)
    // A crash between the temporary file's write and its rename leaves it beside the state.
    #expect(FileManager.default.createFile(atPath: first + ".tmp", contents: Data("{".utf8)))

    Sample.remove(first)
    #expect(Sample.read(second)?.offset == 2, "another upload's state stays")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.file(".haul/uploads"))
        == [(second as NSString).lastPathComponent])
    Sample.remove(second)
    #expect(!FileManager.default.fileExists(atPath: directory.file(".haul")))

    // Written again after its folders went, the state makes them anew.
    try Sample(offset: 3).write(to: second)
    #expect(Sample.read(second)?.offset == 3)
  }

  @Test func a_haul_folder_that_holds_other_files_stays() throws {
    let directory = try TemporaryDirectory(prefix: "haul-upload-state-beside")
    defer { directory.remove() }
    let path = UploadStateFile.path(directory: directory.path, key: "only")
    try Sample(offset: 1).write(to: path)
    #expect(FileManager.default.createFile(atPath: directory.file(".haul/runs"), contents: nil))
    Sample.remove(path)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.file(".haul")) == ["runs"])
  }
}

/// The state files are reached through `.haul/uploads` without following a symlink
/// (docs/behaviour.md, "Local files"): a planted `.haul` or state file is never written,
/// read or removed through.
@Suite("Upload state files: planted symlinks are never followed")
struct UploadStateFileSymlinkTests {
  struct Sample: UploadState { var offset: Int }

  @Test func a_planted_haul_folder_refuses_the_write_and_leaves_the_outside_alone() throws {
    let directory = try TemporaryDirectory(prefix: "haul-upload-state-link")
    defer { directory.remove() }
    let outside = directory.file("outside")
    try FileManager.default.createDirectory(
      atPath: outside + "/uploads", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: directory.file("out/.haul"), withDestinationPath: outside)
    let path = UploadStateFile.path(directory: directory.file("out"), key: "k")
    let name = (path as NSString).lastPathComponent
    #expect(
      FileManager.default.createFile(
        atPath: outside + "/uploads/" + name, contents: Data("{\"offset\":9}".utf8)))

    #expect(throws: TransferError.self) { try Sample(offset: 1).write(to: path) }
    do {
      try Sample(offset: 1).write(to: path)
    } catch {
      #expect(error.code == .pathRefused, "\(error)")
    }
    #expect(Sample.read(path) == nil, "read through the planted .haul")
    Sample.remove(path)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: outside + "/uploads") == [name])
  }

  @Test func a_planted_state_file_is_not_read_and_is_replaced_not_written_through() throws {
    let directory = try TemporaryDirectory(prefix: "haul-upload-state-file-link")
    defer { directory.remove() }
    let path = UploadStateFile.path(directory: directory.path, key: "k")
    try Sample(offset: 1).write(to: path)
    let secret = directory.file("secret.json")
    #expect(FileManager.default.createFile(atPath: secret, contents: Data("{\"offset\":7}".utf8)))
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: secret)

    #expect(Sample.read(path) == nil)
    try Sample(offset: 2).write(to: path)
    #expect(Sample.read(path)?.offset == 2)
    #expect(FileManager.default.contents(atPath: secret) == Data("{\"offset\":7}".utf8))
  }
}

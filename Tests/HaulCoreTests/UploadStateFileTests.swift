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

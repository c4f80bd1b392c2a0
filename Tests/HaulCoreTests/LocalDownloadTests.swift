import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// The local files of one download: state written atomically and never trusted when
/// damaged, no state outliving a finished file, no symlink followed, no room no request.
@Suite("Local download files: state, finish, links and free space")
struct LocalDownloadTests {
  let directory: TemporaryDirectory
  let output: OutputDirectory
  let state = ResumeState(
    url: "http://h/f", sha256: nil, size: 10, validator: "\"e1\"", total: 10)

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-local")
    output = try OutputDirectory(path: directory.path)
  }

  @Test func a_folder_read_once_tells_whether_any_partial_is_pending_in_it() throws {
    defer { directory.remove() }
    // Given a folder found in place with finished files only, and one with a partial too
    for path in ["clean/a.bin", "clean/b.bin", "busy/a.bin", "busy/b.bin.haul-partial"] {
      try FileManager.default.createDirectory(
        atPath: directory.file((path as NSString).deletingLastPathComponent),
        withIntermediateDirectories: true)
      #expect(FileManager.default.createFile(atPath: directory.file(path), contents: Data()))
    }
    let found = try OutputDirectory(path: directory.path)
    // Then only the second may have a partial, and the one there is found
    let clean = try LocalDownload(directory: found, path: "clean/a.bin", durable: false)
    #expect(!clean.mayHavePartial)
    let busy = try LocalDownload(directory: found, path: "busy/b.bin", durable: false)
    #expect(busy.mayHavePartial)
    #expect(busy.partial() != nil)
    // And a file in the output directory itself is always looked for
    #expect(try LocalDownload(directory: found, path: "top.bin", durable: false).mayHavePartial)
  }

  @Test func state_round_trips_and_a_damaged_file_reads_as_none() throws {
    defer { directory.remove() }
    let local = try LocalDownload(directory: output, path: "a/f.bin", durable: true)
    #expect(local.readState() == nil)
    try local.writeState(state)
    #expect(local.readState() == state)
    #expect(!FileManager.default.fileExists(atPath: directory.file("a/f.bin.haul-state.tmp")))

    let path = directory.file("a/f.bin.haul-state")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: path))
    #expect(local.readState() == nil)
    try Data().write(to: URL(fileURLWithPath: path))
    #expect(local.readState() == nil)
  }

  @Test func finishing_moves_the_partial_in_place_and_no_later_state_write_survives() throws {
    defer { directory.remove() }
    let local = try LocalDownload(directory: output, path: "f.bin", durable: true)
    try local.writeState(state)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    #expect(write(fd, "0123456789", 10) == 10)
    try local.finish(partial: fd)
    #expect(try String(contentsOfFile: directory.file("f.bin"), encoding: .utf8) == "0123456789")
    #expect(local.partial() == nil)
    // A segmented download's state saver may still run after the file was finished.
    try local.writeState(state)
    #expect(local.readState() == nil)
    #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.haul-state")))
  }

  @Test func a_small_download_in_a_new_folder_is_unnamed_until_it_is_linked_in_place() throws {
    defer { directory.remove() }
    // Given a body of known small size in a folder this run created
    let local = try LocalDownload(directory: output, path: "new/f.bin", durable: false)
    let (fd, existing) = try local.openOrCreatePartial(expecting: 10)
    defer { close(fd) }
    #expect(existing == 0)
    #expect(write(fd, "0123456789", 10) == 10)
    // Then no name is added to the folder until the file is finished, and that one only
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("new")).isEmpty)
    try local.finish(partial: fd)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("new")) == ["f.bin"])
    #expect(
      try String(contentsOfFile: directory.file("new/f.bin"), encoding: .utf8) == "0123456789")
  }

  @Test func an_unnamed_partial_gets_its_name_before_an_unfinished_write_and_is_resumed() throws {
    defer { directory.remove() }
    let local = try LocalDownload(directory: output, path: "new/f.bin", durable: false)
    let (fd, _) = try local.openOrCreatePartial(expecting: 10)
    // When the first bytes written leave the body unfinished (a failed attempt keeps them)
    try local.namePartial(fd)
    #expect(write(fd, "0123", 4) == 4)
    close(fd)
    // Then they are in the partial file, and the next attempt opens it to resume
    #expect(local.partial()?.size == 4)
    let (again, existing) = try local.openOrCreatePartial(expecting: 10)
    defer { close(again) }
    #expect(existing == 4)
    #expect(pwrite(again, "456789", 6, 4) == 6)
    try local.finish(partial: again)
    #expect(local.partial() == nil)
    #expect(
      try String(contentsOfFile: directory.file("new/f.bin"), encoding: .utf8) == "0123456789")
  }

  @Test func a_partial_another_run_left_in_a_new_folder_is_resumed() throws {
    defer { directory.remove() }
    // Given this run alone in a folder that was empty at its start,
    #expect(!output.otherRuns.mayHaveWritten)
    do {
      // when another run comes and is killed with a small file's first bytes written,
      let other = try OutputDirectory(path: directory.path)
      let theirs = try LocalDownload(directory: other, path: "f.bin", durable: false)
      let (fd, _) = try theirs.openOrCreatePartial(expecting: 10)
      try theirs.namePartial(fd)
      #expect(write(fd, "0123", 4) == 4)
      close(fd)
    }
    // then this run's download of that file resumes from them instead of starting unnamed
    // and leaving their partial beside the finished file.
    let local = try LocalDownload(directory: output, path: "f.bin", durable: false)
    let (fd, existing) = try local.openOrCreatePartial(expecting: 10)
    defer { close(fd) }
    #expect(existing == 4)
    #expect(pwrite(fd, "456789", 6, 4) == 6)
    try local.finish(partial: fd)
    #expect(local.partial() == nil)
    #expect(
      try String(contentsOfFile: directory.file("f.bin"), encoding: .utf8) == "0123456789")
  }

  @Test func an_unnamed_file_replaces_what_appeared_at_its_destination_as_a_rename_does() throws {
    defer { directory.remove() }
    let local = try LocalDownload(directory: output, path: "f.bin", durable: false)
    let (fd, _) = try local.openOrCreatePartial(expecting: 10)
    defer { close(fd) }
    #expect(write(fd, "0123456789", 10) == 10)
    // A symlink planted at the destination is replaced, never followed
    try FileManager.default.createSymbolicLink(
      atPath: directory.file("f.bin"), withDestinationPath: directory.file("elsewhere"))
    try local.finish(partial: fd)
    #expect(local.destination()?.isRegularFile == true)
    #expect(
      try String(contentsOfFile: directory.file("f.bin"), encoding: .utf8) == "0123456789")
    #expect(!FileManager.default.fileExists(atPath: directory.file("elsewhere")))
    #expect(local.partial() == nil)
  }

  @Test func a_large_or_unsized_body_and_a_folder_with_files_keep_a_named_partial() throws {
    defer { directory.remove() }
    for (path, size) in [("big.bin", LocalDownload.unnamedLimit + 1), ("unsized.bin", nil)] {
      let local = try LocalDownload(directory: output, path: path, durable: false)
      let (fd, _) = try local.openOrCreatePartial(expecting: size)
      close(fd)
      #expect(local.partial() != nil, "\(path)")
    }
    // The output directory now holds files: a new run there looks for partials of its own
    let found = try OutputDirectory(path: directory.path)
    let local = try LocalDownload(directory: found, path: "small.bin", durable: false)
    let (fd, _) = try local.openOrCreatePartial(expecting: 10)
    close(fd)
    #expect(local.partial() != nil)
  }

  @Test func a_name_of_255_bytes_gets_a_partial_and_a_state_and_is_finished() throws {
    defer { directory.remove() }
    let leaf = String(repeating: "n", count: 250) + ".data"
    let local = try LocalDownload(directory: output, path: "d/" + leaf, durable: false)
    let (fd, existing) = try local.openOrCreatePartial()
    defer { close(fd) }
    #expect(existing == 0)
    #expect(write(fd, "0123456789", 10) == 10)
    try local.writeState(state)
    // Another download of the same name (a rerun) finds both.
    let again = try LocalDownload(directory: output, path: "d/" + leaf, durable: false)
    #expect(again.partial()?.size == 10)
    #expect(again.readState() == state)
    try local.finish(partial: fd)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("d"))
    #expect(names == [leaf])
    #expect(
      try String(contentsOfFile: directory.file("d/" + leaf), encoding: .utf8) == "0123456789")
  }

  @Test func files_of_one_folder_share_it_and_a_name_leaving_it_is_still_refused() throws {
    defer { directory.remove() }
    let (first, one) = try output.folder(of: "a/b/1.bin")
    let (second, two) = try output.folder(of: "a/b/2.bin")
    let (other, three) = try output.folder(of: "a/c/3.bin")
    let (root, four) = try output.folder(of: "4.bin")
    #expect([one, two, three, four] == ["1.bin", "2.bin", "3.bin", "4.bin"])
    #expect(first != nil && first === second)
    #expect(other != nil && other !== first)
    #expect(root == nil)
    #expect(FileManager.default.fileExists(atPath: directory.file("a/c")))
    do {
      _ = try output.folder(of: "a/b/..")
      Issue.record("a path ending in .. was given a folder")
    } catch {
      #expect(error.code == .pathRefused)
    }
  }

  @Test func files_in_folders_the_run_made_or_found_empty_are_new_and_others_are_not() throws {
    defer { directory.remove() }
    // Given an output directory that was empty when the run opened it,
    #expect(output.startedEmpty)
    // then a file in it, and in a folder the run creates, is new (nothing to skip),
    #expect(try LocalDownload(directory: output, path: "f.bin", durable: false).isNew)
    #expect(try LocalDownload(directory: output, path: "made/f.bin", durable: false).isNew)
    // while a file in a folder that was there before is not,
    try FileManager.default.createDirectory(
      atPath: directory.file("old"), withIntermediateDirectories: true)
    #expect(try !LocalDownload(directory: output, path: "old/f.bin", durable: false).isNew)
    // nor one in an output directory that held something when the run opened it.
    let reopened = try OutputDirectory(path: directory.path)
    #expect(!reopened.startedEmpty)
    #expect(try !LocalDownload(directory: reopened, path: "g.bin", durable: false).isNew)
  }

  @Test func a_symlinked_partial_or_parent_is_refused() throws {
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("real"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: directory.file("link"), withDestinationPath: directory.file("real"))
    do {
      _ = try LocalDownload(directory: output, path: "link/f.bin", durable: false)
      Issue.record("walked through a symlinked folder")
    } catch {
      #expect(error.code == .pathRefused)
    }
    try FileManager.default.createSymbolicLink(
      atPath: directory.file("g.bin.haul-partial"), withDestinationPath: directory.file("real/x"))
    let local = try LocalDownload(directory: output, path: "g.bin", durable: false)
    do {
      _ = try local.openPartial(truncate: false)
      Issue.record("opened a partial file through a symlink")
    } catch {
      #expect(error.code == .pathRefused)
    }
    #expect(!FileManager.default.fileExists(atPath: directory.file("real/x")))
  }

  @Test func a_size_beyond_the_free_space_is_disk_full_and_a_small_one_fits() throws {
    defer { directory.remove() }
    let local = try LocalDownload(directory: output, path: "f.bin", durable: false)
    try local.ensureRoom(for: 1)
    try local.ensureRoom(for: 0)
    do {
      try local.ensureRoom(for: Int64.max)
      Issue.record("no file system has Int64.max bytes free")
    } catch {
      #expect(error.code == .diskFull)
    }
  }
}

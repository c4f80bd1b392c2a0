import Foundation
import Testing

@testable import HaulCore

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct FileSystemTypeTests {
  @Test func reads_the_type_of_a_device_from_mountinfo() {
    let table = """
      22 27 0:21 / /proc rw,relatime - proc proc rw
      27 1 254:1 / / rw,relatime - ext4 /dev/vda1 rw
      31 24 0:27 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw
      40 27 0:35 / /mnt/opt rw shared:5 master:2 - fuse.sshfs host:/ rw
      """
    #expect(FileSystemType.type(device: "254:1", in: table) == "ext4")
    #expect(FileSystemType.type(device: "0:27", in: table) == "tmpfs")
    #expect(FileSystemType.type(device: "0:35", in: table) == "fuse.sshfs")
    #expect(FileSystemType.type(device: "8:1", in: table) == nil)
  }

  @Test func tells_a_tmpfs_from_the_folder_it_is_mounted_on() throws {
    let shm = open("/dev/shm", O_RDONLY | O_DIRECTORY)
    try #require(shm >= 0, "this machine has no /dev/shm")
    defer { close(shm) }
    #expect(FileSystemType.of(shm) == "tmpfs")
    let root = open("/", O_RDONLY | O_DIRECTORY)
    defer { close(root) }
    #expect(FileSystemType.of(root) != nil)
    #expect(FileSystemType.of(root) != "tmpfs")
  }
}

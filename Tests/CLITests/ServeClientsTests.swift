import Foundation
import HaulTestSupport
import Testing

@Suite("haul serve: many clients at once, and systemd's readiness")
struct ServeClientsTests {
  @Test func two_hundred_jobs_from_eight_clients_at_once_are_all_queued_and_done() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-clients")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      let sha = try nginx.createFile("c/one.bin", size: 2000, seed: 5)
      let url = nginx.url("/c/one.bin").absoluteString
      let daemon = try ServeDaemon(in: directory)
      let ids = try await withThrowingTaskGroup(of: [String].self) { group in
        for client in 0..<8 {
          group.addTask {
            var ids: [String] = []
            for job in 0..<25 {
              let result = try await daemon.client(["add", url, "-o", "root/c\(client)-\(job)"])
              #expect(result.status == 0, "\(result.stderr)")
              ids.append(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return ids
          }
        }
        var all: [String] = []
        for try await ids in group { all += ids }
        return all
      }
      #expect(Set(ids).count == 200)
      let waited = try await daemon.client(["wait", "-q"] + ids, timeout: 300)
      #expect(waited.status == 0, "\(waited.stderr)")
      let listed = try jsonArray(try await daemon.client(["jobs", "--json"]).stdout)
      #expect(listed.count == 200)
      #expect(listed.allSatisfy { $0["state"] as? String == "complete" })
      for client in 0..<8 {
        #expect(try fileSHA256(directory.file("root/c\(client)-24/one.bin")) == sha)
      }
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func the_daemon_tells_systemd_it_is_ready_once_its_socket_listens() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-notify")
    defer { directory.remove() }
    let path = directory.file("notify.sock")
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0)
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let daemon = try ServeDaemon(in: directory, environment: ["NOTIFY_SOCKET": path])
    var buffer = [UInt8](repeating: 0, count: 512)
    let got = recv(fd, &buffer, buffer.count, 0)
    #expect(got > 0)
    let message = String(decoding: buffer.prefix(max(0, got)), as: UTF8.self)
    #expect(message.contains("READY=1"), "\(message)")
    // Ready means the socket answers.
    #expect(try await daemon.client(["jobs"]).status == 0)
    #expect(try await daemon.terminate()?.status == 0)
  }
}

/// Parses `text` as a JSON array of objects.
func jsonArray(_ text: String) throws -> [[String: Any]] {
  let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
  return try #require(value as? [[String: Any]], "not a JSON array: \(text)")
}

import Foundation
import Testing

@testable import HaulTestSupport

/// The S3 fixtures' wait for their server: only a socket of the server's own counts.
@Suite struct LocalServerTests {
  @Test func a_port_another_server_took_is_not_taken_for_the_fixtures_server() throws {
    // Given a port on which another server (this process's) listens,
    let other = try FaultServer.started()
    defer { other.stop() }
    let directory = try TemporaryDirectory(prefix: "haul-local-server")
    // when a process that never listens there is waited for,
    let process = try Process.daemon("/bin/sleep", ["1"])

    // then the wait fails once it exits, instead of taking the other server for it.
    #expect(throws: FixtureError.self) {
      try LocalServer.listening(process, port: other.port, directory: directory, name: "sleep")
    }
    #expect(!FileManager.default.fileExists(atPath: directory.path))
  }
}

import Foundation
import HaulTestSupport
import Testing

/// haul's page in headless Chromium, driven by `page/page_check.py` (selenium): against a
/// daemon with a slow job running (nginx's `/slow/` is 1 MB/s), a finished one and one
/// whose entry failed with a 404.
@Suite("haul page: the page in a browser, live, with its forms and buttons")
struct PageBrowserTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("page/page_check.py").path

  @Test func the_page_lists_adds_pauses_and_resumes_jobs_offline_at_both_widths() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-page-browser")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      for index in 0..<3 {
        _ = try nginx.createFile("small/f\(index).bin", size: 40_000, seed: UInt64(index))
      }
      _ = try nginx.createFile("slow/big.bin", size: 90 << 20, seed: 9)
      _ = try nginx.createFile("slow/next.bin", size: 4 << 20, seed: 10)
      let daemon = try ServeDaemon(in: directory, listen: true)

      // Given a finished job, one that failed (a 404), and a slow one running.
      let small = (0..<3).map { nginx.url("/small/f\($0).bin").absoluteString }
      let done = try await daemon.client(["add"] + small + ["-o", "root/small", "--wait"])
      #expect(done.status == 0, "\(done.stderr)")
      let failed = try await daemon.client(
        [
          "add", nginx.url("/missing.bin").absoluteString, small[0], "-o", "root/mixed",
          "--retries", "0", "--wait",
        ])
      #expect(failed.status == 1, "\(failed.stderr)")
      let failedID = try #require(failed.stdout.split(separator: "\n").first.map(String.init))
      let slow = try await daemon.add([nginx.url("/slow/big.bin").absoluteString, "-o", "root/big"])
      try await daemon.until(slow) { $0["state"] as? String == "active" }

      // When haul page's address is opened and the page is used.
      let page = try await HaulBinary.run(["page", "--state-dir", daemon.state], in: directory)
      #expect(page.status == 0, "\(page.stderr)")
      let address = page.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      let checked = try python3(
        [
          Self.script, address, HaulBinary.path, daemon.socket, directory.path, slow, failedID,
          nginx.url("/slow/next.bin").absoluteString, nginx.url("/small/f1.bin").absoluteString,
        ])

      // Then the script saw every step, and the daemon has the job added.
      #expect(checked.status == 0, "\(checked.output)")
      #expect(checked.output.contains("ok "), "\(checked.output)")
      #expect(FileManager.default.fileExists(atPath: directory.file("haul-page-wide.png")))
      #expect(FileManager.default.fileExists(atPath: directory.file("haul-page-narrow.png")))
      let listed = try await daemon.client(["jobs", "--json"])
      #expect(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any] != nil)
      #expect(listed.stdout.components(separatedBy: "\"id\"").count - 1 == 4, "\(listed.stdout)")
      #expect(try await daemon.terminate()?.status == 0)
    }
  }
}

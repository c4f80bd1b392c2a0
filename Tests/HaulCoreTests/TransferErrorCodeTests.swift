import Foundation
import Testing

@testable import HaulCore

/// The error codes are values; their spelling is what the report, the events and scripts
/// read, so it stays the one docs/manual.md lists under "Error codes".
@Suite("Error codes: values whose spelling is the manual's")
struct TransferErrorCodeTests {
  static let fixed: [(TransferError.Code, String)] = [
    (.sizeMismatch, "size_mismatch"), (.checksumMismatch, "checksum_mismatch"), (.auth, "auth"),
    (.timeout, "timeout"), (.connection, "connection"), (.tls, "tls"), (.proxy, "proxy"),
    (.protocol, "protocol"), (.redirectRefused, "redirect_refused"),
    (.pathRefused, "path_refused"), (.diskFull, "disk_full"), (.io, "io"),
    (.cancelled, "cancelled"),
  ]

  @Test func each_code_is_spelled_as_the_report_has_always_spelled_it() {
    for (code, spelling) in Self.fixed {
      #expect(code.rawValue == spelling)
      #expect("\(code)" == spelling)
      #expect(code.httpStatus == nil)
    }
    #expect(TransferError.Code.http(404).rawValue == "http_404")
    #expect(TransferError(.http(503), "busy").description == "http_503: busy")
    #expect(Set(Self.fixed.map(\.0)).count == Self.fixed.count)
  }

  @Test func an_http_code_carries_its_status_and_is_equal_only_to_the_same_status() {
    #expect(TransferError.Code.http(404).httpStatus == 404)
    #expect(TransferError.Code.http(599).httpStatus == 599)
    #expect(TransferError.Code.http(404) == .http(404))
    #expect(TransferError.Code.http(404) != .http(410))
    #expect(TransferError.Code.http(404) != .io)
  }

  @Test func the_manual_lists_exactly_these_codes() throws {
    let manual = try String(
      contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/manual.md").path,
      encoding: .utf8)
    let section =
      try #require(manual.components(separatedBy: "## Error codes\n").last)
      .components(separatedBy: "\n## ").first ?? ""
    let listed = section.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("| `") else { return nil }
      return line.dropFirst(3).split(separator: "`").first.map(String.init)
    }
    #expect(Set(listed) == Set(Self.fixed.map(\.1) + ["http_<status>"]))
    #expect(listed.count == Self.fixed.count + 1)
  }
}

import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

@Suite struct ManifestReadingTests {
  @Test func skips_blank_and_comment_lines_but_counts_them() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(lines: [
      "# a list of files", "", "   ", "\t", "  # indented comment", "http://h/a", "#http://h/b",
      #"{"url":"http://h/c"}"#,
    ])
    #expect(try manifest.validate().entries == 2)
    let entries = Array(manifest.entries())
    #expect(entries.map(\.line) == [6, 8])
    #expect(entries.map(\.path) == ["a", "c"])
  }

  @Test func reads_crlf_lines_without_their_carriage_return() throws {
    let fixture = ManifestFixture()
    let text = "# windows\r\nhttp://h/a\r\n\r\n{\"url\":\"http://h/b\",\"size\":3}\r\n"
    let manifest = fixture.manifest(bytes: Array(text.utf8))
    #expect(
      try manifest.validate()
        == ManifestStatistics(entries: 2, knownBytes: 3, entriesWithoutSize: 1))
    let entries = Array(manifest.entries())
    #expect(entries.map(\.line) == [2, 4])
    #expect(entries.map(\.text) == ["http://h/a", #"{"url":"http://h/b","size":3}"#])

    let bad = fixture.manifest(bytes: Array("http://h/a\r\n{\"url\":1}\r\n".utf8))
    #expect(ManifestFixture.validationError(bad)?.line == 2)
  }

  /// A carriage return is JSON white space, so a line that starts with one (a stray CR of a
  /// CRLF file edited elsewhere) is an object line like any other.
  @Test func reads_a_line_that_starts_with_a_carriage_return() throws {
    let fixture = ManifestFixture()
    let text = "\r{\"url\":\"http://h/a\"}\n\r\t http://h/b\n\r\n\r# note\n"
    let manifest = fixture.manifest(bytes: Array(text.utf8))
    #expect(try manifest.validate().entries == 2)
    #expect(Array(manifest.entries()).map(\.path) == ["a", "b"])
  }

  @Test func last_line_may_lack_its_newline() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(bytes: Array("http://h/a\n{\"url\":\"http://h/b\"}".utf8))
    #expect(try manifest.validate().entries == 2)
    #expect(Array(manifest.entries()).map(\.text) == ["http://h/a", #"{"url":"http://h/b"}"#])
    let crOnly = fixture.manifest(bytes: Array("http://h/a\nhttp://h/b\r".utf8))
    #expect(Array(crOnly.entries()).map(\.text) == ["http://h/a", "http://h/b"])
  }

  @Test func skips_a_byte_order_mark_at_the_start() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(bytes: [0xEF, 0xBB, 0xBF] + Array("http://h/a\n".utf8))
    #expect(Array(manifest.entries()).map(\.text) == ["http://h/a"])
  }

  @Test func empty_manifest_has_no_entries() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(bytes: [])
    #expect(
      try manifest.validate()
        == ManifestStatistics(entries: 0, knownBytes: 0, entriesWithoutSize: 0))
    #expect(Array(manifest.entries()).isEmpty)
  }

  /// Lines of many lengths, so that some straddle each 64 KiB read, and one long line that
  /// spans many reads.
  @Test func entries_yield_what_validation_saw() throws {
    let fixture = ManifestFixture()
    var lines: [String] = []
    var expected: [(line: Int, path: String, size: Int64?)] = []
    for index in 0..<6000 {
      switch index % 4 {
      case 0:
        lines.append("# comment \(String(repeating: "x", count: index % 97))")
      case 1:
        let path = "d\(index)/" + String(repeating: "p", count: 1 + index % 211)
        lines.append(#"{"url":"http://h/f/\#(index)","path":"\#(path)","size":\#(index)}"#)
        expected.append((lines.count, path, Int64(index)))
      case 2:
        lines.append("http://h/bare/n\(index)")
        expected.append((lines.count, "n\(index)", nil))
      default:
        lines.append("")
      }
    }
    let longPath = String(repeating: "L", count: 900_000)
    lines.append(#"{"url":"http://h/long","path":"\#(longPath)"}"#)
    expected.append((lines.count, longPath, nil))
    let manifest = fixture.manifest(lines: lines)

    let statistics = try manifest.validate()
    #expect(statistics.entries == expected.count)
    #expect(statistics.knownBytes == expected.compactMap(\.size).reduce(0, +))
    #expect(statistics.entriesWithoutSize == expected.filter { $0.size == nil }.count)

    let entries = Array(manifest.entries())
    #expect(entries.count == expected.count)
    #expect(entries.map(\.line) == expected.map(\.line))
    #expect(entries.map(\.path) == expected.map(\.path))
    #expect(entries.map(\.size) == expected.map(\.size))
    #expect(entries.map(\.text) == expected.map { lines[$0.line - 1] })
    // Each iteration reads the file anew.
    #expect(Array(manifest.entries()) == entries)
  }

  @Test func known_bytes_saturate() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(lines: [
      #"{"url":"http://h/a","size":9223372036854775807}"#, #"{"url":"http://h/b","size":1}"#,
    ])
    #expect(try manifest.validate().knownBytes == .max)
  }

  @Test func checked_iterator_reports_a_line_that_no_longer_parses() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(lines: [
      "http://h/a", #"{"url":"http://h/b","bogus":1}"#, "http://h/c",
    ])
    let iterator = manifest.entries().makeCheckedIterator()
    #expect(try iterator.nextEntry()?.path == "a")
    let error = #expect(throws: ManifestError.self) { try iterator.nextEntry() }
    #expect(error?.line == 2)
    #expect(error?.reason == #"unknown field "bogus""#)
    #expect(try iterator.nextEntry() == nil)
    // The plain iterator ends at the same place, and its entries say why.
    let entries = manifest.entries()
    #expect(Array(entries).map(\.path) == ["a"])
    #expect(entries.failure?.line == 2)
    #expect(entries.failure?.reason == #"unknown field "bogus""#)
  }

  @Test func entries_read_to_the_end_report_no_failure() throws {
    let fixture = ManifestFixture()
    let entries = fixture.manifest(lines: ["http://h/a", "http://h/b"]).entries()
    #expect(Array(entries).map(\.path) == ["a", "b"])
    #expect(entries.failure == nil)
  }

  @Test func checked_iterator_reports_a_too_long_line() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(lines: [
      "http://h/a", String(repeating: "#", count: (1 << 20) + 10),
    ])
    let iterator = manifest.entries().makeCheckedIterator()
    #expect(try iterator.nextEntry()?.line == 1)
    let error = #expect(throws: ManifestError.self) { try iterator.nextEntry() }
    #expect(error?.line == 2)
    #expect(error?.reason.contains("longer than 1 MiB") == true)
  }

  @Test func checked_iterator_reports_a_missing_file() throws {
    let manifest = Manifest(
      path: "/nonexistent/haul/m.jsonl", displayName: "-", outputDirectory: ".")
    let error = #expect(throws: ManifestError.self) {
      try manifest.entries().makeCheckedIterator().nextEntry()
    }
    #expect(error?.line == 0)
    #expect(error?.description.hasPrefix("-: cannot open") == true)
  }

  @Test func reader_reports_each_too_long_line_and_goes_on() throws {
    let fixture = ManifestFixture()
    let long = String(repeating: "z", count: (1 << 20) + 1)
    _ = fixture.manifest(lines: ["a", long, "b", long + long, "c"])
    let reader = try #require(ManifestLineReader(path: fixture.manifestPath))
    var seen: [String] = []
    while let event = reader.next() {
      switch event {
      case .line(let number, let bytes):
        seen.append("\(number):\(String(decoding: bytes, as: UTF8.self))")
      case .tooLong(let number): seen.append("\(number):too long")
      case .readFailed: seen.append("failed")
      }
    }
    #expect(seen == ["1:a", "2:too long", "3:b", "4:too long", "5:c"])
  }
}

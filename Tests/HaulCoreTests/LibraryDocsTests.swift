import Foundation
import Testing

/// docs/library.md against the sources: every type the library targets make `public` is in
/// its tables of the public API and nothing else is, and every public option of
/// `SchedulerOptions` and `TransportOptions` is named in its "Options", so that the two
/// cannot drift apart unseen (as the manual page is held to `--help`).
@Suite("docs/library.md names the library's public API")
struct LibraryDocsTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let libraryTargets = [
    "HaulCore", "HaulS3", "HaulWeb", "HaulResumable", "HaulCurl", "HaulURLSession",
  ]

  static func read(_ relative: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
  }

  /// The Swift files of `target`, by path below the package root.
  static func sources(of target: String) throws -> [String] {
    let folder = root.appendingPathComponent("Sources/\(target)")
    let walker = try #require(FileManager.default.enumerator(atPath: folder.path))
    return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
      .map { "Sources/\(target)/\($0)" }
  }

  /// A top-level public type: its kind and name.
  static var declaration: Regex<AnyRegexOutput> {
    try! Regex(
      #"^public (?:final )?(class|struct|enum|actor|protocol|typealias) ([A-Za-z_][A-Za-z0-9_]*)"#
    )
  }

  /// `KIND NAME` of every top-level public declaration of the library targets.
  static func publicDeclarations() throws -> Set<String> {
    var found: Set<String> = []
    for target in libraryTargets {
      for path in try sources(of: target) {
        for line in try read(path).split(separator: "\n") {
          guard let match = try declaration.prefixMatch(in: line) else { continue }
          found.insert("\(match.output[1].substring!) \(match.output[2].substring!)")
        }
      }
    }
    return found
  }

  /// The text of `section` (a `## ` heading) of docs/library.md.
  static func section(_ heading: String) throws -> String {
    let text = try read("docs/library.md")
    let start = try #require(text.range(of: "\n## \(heading)\n"))
    let rest = text[start.upperBound...]
    return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
  }

  /// Every backticked span of `text`.
  static func spans(_ text: String) -> [String] {
    text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }

  @Test func the_public_api_tables_list_every_public_type_and_no_other() throws {
    let sources = try Self.publicDeclarations()
    #expect(sources.contains("actor Scheduler"))
    var documented: Set<String> = []
    for span in Self.spans(try Self.section("The public API")) {
      if let match = try Self.declaration.prefixMatch(in: "public " + span),
        match.output[0].substring?.count == span.count + 7
      {
        documented.insert("\(match.output[1].substring!) \(match.output[2].substring!)")
      }
    }
    #expect(sources.subtracting(documented).isEmpty, "public, not in docs/library.md")
    #expect(documented.subtracting(sources).isEmpty, "in docs/library.md, not public")
  }

  /// The names of the public stored and computed properties of `type`, declared at the top
  /// of its body (two spaces in) in `path`.
  static func publicProperties(of type: String, in path: String) throws -> Set<String> {
    let text = try read(path)
    let start = try #require(text.range(of: "public struct \(type)"))
    let body = text[start.upperBound...]
    let end = body.range(of: "\n}\n")?.lowerBound ?? body.endIndex
    let property = try Regex(#"^  public (?:static )?(?:var|let) ([A-Za-z_][A-Za-z0-9_]*)"#)
    var names: Set<String> = []
    for line in body[..<end].split(separator: "\n") {
      if let match = try property.prefixMatch(in: line) {
        names.insert(String(match.output[1].substring!))
      }
    }
    return names
  }

  @Test func the_options_section_names_every_public_option() throws {
    let options = Set(Self.spans(try Self.section("Options")))
    let scheduler = try Self.publicProperties(
      of: "SchedulerOptions", in: "Sources/HaulCore/Scheduling/SchedulerOptions.swift")
    let transport = try Self.publicProperties(
      of: "TransportOptions", in: "Sources/HaulCore/Transport/Transport.swift")
    #expect(scheduler.contains("outputDirectory") && transport.contains("maxConnections"))
    #expect(scheduler.subtracting(options).isEmpty, "SchedulerOptions, not in docs/library.md")
    #expect(transport.subtracting(options).isEmpty, "TransportOptions, not in docs/library.md")
  }
}

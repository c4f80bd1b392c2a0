import Foundation
import HaulTestSupport
import Testing

@Suite("haul command line: help, version, usage errors")
struct CLIUsageTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory(prefix: "haul-cli-usage") }

  @Test(arguments: [["--help"], ["help"], ["-h"]])
  func overview_help_lists_the_commands(arguments: [String]) async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(arguments, in: directory)
    #expect(result.status == 0)
    for command in ["run", "verify", "bench"] { #expect(result.stdout.contains("  \(command) ")) }
  }

  @Test(arguments: [
    ["run", "--help"], ["help", "run"], ["run", "-h"], ["run", "x.jsonl", "--help"],
  ])
  func run_help_lists_every_option_of_the_spec(arguments: [String]) async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(arguments, in: directory)
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("Usage: haul run MANIFEST [options]"))
    for option in [
      "-o, --output DIR", "-j, --concurrency N|auto", "--per-host N", "--transport", "--retries N",
      "--segments N", "--min-segment-size SIZE", "--max-rate RATE", "--timeout SECONDS",
      "--header", "--auth-command CMD", "--report FILE", "--events", "--shard K/N",
      "-q, --quiet", "--cacert FILE", "--fsync", "--failed FILE",
    ] {
      #expect(result.stdout.contains(option), "help lacks \(option)")
    }
    #expect(result.stdout.split(separator: "\n").allSatisfy { $0.count <= 90 })
  }

  @Test func verify_help_says_uploads_are_not_checked() async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(["verify", "--help"], in: directory)
    #expect(result.status == 0)
    #expect(result.stdout.contains("Uploads are not"))
    #expect(result.stdout.contains("-o, --output DIR"))
  }

  @Test func version_names_haul_and_the_libcurl_and_openssl_it_runs_on() async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(["--version"], in: directory)
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n")
    try #require(lines.count == 3)
    #expect(lines[0].hasPrefix("haul 0."))
    #expect(lines[1].hasPrefix("libcurl ") && lines[1].contains("OpenSSL/"))
    #expect(lines[2].hasPrefix("OpenSSL "))
  }

  @Test(arguments: [
    (["run", "m.jsonl", "--bogus"], "unknown option '--bogus'"),
    (["run", "m.jsonl", "-x"], "unknown option '-x'"),
    (["run", "m.jsonl", "-j", "0"], "--concurrency must be auto or a whole number"),
    (["run", "m.jsonl", "-jx"], "--concurrency must be auto or a whole number"),
    (["run", "m.jsonl", "--concurrency=many"], "--concurrency must be auto or a whole number"),
    (["run", "m.jsonl", "--per-host", "-1"], "option '--per-host' needs a value"),
    (["run", "m.jsonl", "--retries", "1.5"], "--retries must be a whole number"),
    (["run", "m.jsonl", "--timeout", "0"], "--timeout must be a number of seconds"),
    (["run", "m.jsonl", "--min-segment-size", "8Q"], "--min-segment-size must be a size"),
    (["run", "m.jsonl", "--transport", "ftp"], "--transport must be curl or urlsession"),
    (["run", "m.jsonl", "--report"], "option '--report' needs a value"),
    (["run", "m.jsonl", "--quiet=yes"], "option '--quiet' takes no value"),
    (["run", "m.jsonl", "--header", "NoColonHere"], "--header must look like 'Name: value'"),
    (["run", "m.jsonl", "--header", "Bad Name: v"], "not a valid HTTP token"),
    (["run", "m.jsonl", "--header", "host: example.com"], "is set by haul"),
    (["run", "m.jsonl", "--header=Content-Length: 5"], "is set by haul"),
    (["run", "m.jsonl", "--header", "If-Range: x"], "is set by haul"),
    (["run", "m.jsonl", "--segments", "0"], "--segments must be a whole number from 1 to 64"),
    (["run", "m.jsonl", "--max-rate", "0"], "--max-rate must be more than 0"),
    (["run", "m.jsonl", "--shard", "2/2"], "--shard must be K/N with 0 <= K < N"),
    (["run", "m.jsonl", "--auth-command", " "], "--auth-command needs a command"),
    (["run", "m.jsonl", "--cacert", "/no/such/ca.pem"], "--cacert '/no/such/ca.pem' is not"),
    (["run", "m.jsonl", "--report", "/no/such/dir/r.json"], "--report '/no/such/dir/r.json'"),
    (["run", "m.jsonl", "-o", "/etc/passwd"], "--output '/etc/passwd' is not a directory"),
    (["run"], "missing MANIFEST"),
    (["run", "a.jsonl", "b.jsonl"], "unexpected argument 'b.jsonl'"),
    (["verify", "m.jsonl", "--events"], "unknown option '--events'"),
  ])
  func usage_errors_exit_2_with_one_line_and_a_pointer_to_help(
    arguments: [String], message: String
  ) async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(arguments, in: directory)
    #expect(result.status == 2)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 2, "\(result.stderr)")
    #expect(lines.first?.contains(message) == true, "\(result.stderr)")
    #expect(lines.last == "see 'haul \(arguments[0]) --help'")
    #expect(result.stdout.isEmpty)
  }

  @Test(arguments: [["frob"], ["--frob"], ["help", "frob"]])
  func unknown_or_unavailable_commands_exit_2(arguments: [String]) async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(arguments, in: directory)
    #expect(result.status == 2)
    #expect(result.stderr.hasSuffix("see 'haul --help'\n"))
  }

  @Test func header_errors_never_show_the_value() async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(
      ["run", "m.jsonl", "--header", "Authorization: Bearer hunter2\r\nX-Evil: 1"], in: directory)
    #expect(result.status == 2)
    #expect(result.stderr.contains("CR or LF"))
    #expect(!result.stderr.contains("hunter2"))
  }

  @Test func no_arguments_print_the_overview_and_exit_2() async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run([], in: directory)
    #expect(result.status == 2)
    #expect(result.stderr.contains("Commands:"))
  }
}

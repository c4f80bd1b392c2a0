import Foundation
import HaulTestSupport
import Testing

/// The manual page and the shell completions are generated from the command tables, as
/// `--help` is; these tests hold them to every option `--help` lists.
@Suite("haul's manual page and shell completions name every option")
struct CLIManualAndCompletionTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory(prefix: "haul-cli-manual") }

  static let commands = ["run", "verify", "bench"]

  /// Every spelling (`-j`, `--concurrency`) in the options section of `haul COMMAND --help`.
  func helpOptions(_ command: String) async throws -> Set<String> {
    let help = try await HaulBinary.run([command, "--help"], in: directory)
    #expect(help.status == 0)
    let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex(of: "Options:"))
    var spellings: Set<String> = []
    for line in lines[(start + 1)...] {
      if line.isEmpty { break }
      for word in line.split(separator: " ").prefix(3) where word.hasPrefix("-") {
        spellings.insert(String(word.trimmingCharacters(in: CharacterSet(charactersIn: ","))))
      }
    }
    #expect(spellings.contains("--help"))
    return spellings
  }

  @Test func the_manual_page_names_every_option_of_every_command() async throws {
    defer { directory.remove() }
    let page = try await HaulBinary.run(["--generate-man"], in: directory)
    #expect(page.status == 0)
    #expect(page.stdout.hasPrefix(".TH HAUL 1 "))
    for command in Self.commands {
      #expect(page.stdout.contains(".SS \"haul \(command) MANIFEST [options]\""))
      for spelling in try await helpOptions(command) {
        let roff = spelling.replacingOccurrences(of: "-", with: "\\-")
        #expect(page.stdout.contains("\\fB\(roff)\\fR"), "haul.1 lacks \(spelling)")
      }
    }
  }

  @Test func the_bash_completion_offers_exactly_the_options_of_each_command() async throws {
    defer { directory.remove() }
    let script = try await HaulBinary.run(["--generate-completion", "bash"], in: directory)
    #expect(script.status == 0)
    let path = directory.file("haul.bash")
    try script.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    for command in Self.commands {
      let offered = try bashCompletion(script: path, words: ["haul", command, "-"])
      #expect(Set(offered) == (try await helpOptions(command)), "haul \(command) -<TAB>")
    }
    #expect(try bashCompletion(script: path, words: ["haul", ""]).contains("verify"))
    #expect(
      try bashCompletion(script: path, words: ["haul", "run", "--transport", ""])
        == ["curl", "urlsession"])
  }

  @Test func the_zsh_completion_names_every_option_of_every_command() async throws {
    defer { directory.remove() }
    let script = try await HaulBinary.run(["--generate-completion", "zsh"], in: directory)
    #expect(script.status == 0)
    #expect(script.stdout.hasPrefix("#compdef haul\n"))
    for command in Self.commands {
      let block = try #require(
        script.stdout.components(separatedBy: "\n    \(command))\n").dropFirst().first?
          .components(separatedBy: "\n      ;;").first, "no case for \(command)")
      for spelling in try await helpOptions(command) {
        // A spec spells the option whole, followed by its value marker or its help.
        let listed = ["[", "=", "+", ",", "}"].contains { block.contains(spelling + $0) }
        #expect(listed, "the zsh completion of \(command) lacks \(spelling)")
      }
    }
  }

  @Test func an_unknown_shell_is_a_usage_error() async throws {
    defer { directory.remove() }
    let result = try await HaulBinary.run(["--generate-completion", "fish"], in: directory)
    #expect(result.status == 2)
    #expect(result.stderr.contains("--generate-completion needs bash or zsh"))
  }

  /// What bash's completion function offers for `words`, the last being the one completed.
  func bashCompletion(script: String, words: [String]) throws -> [String] {
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      "-c",
      """
      source "$1"; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _haul
      printf '%s\\n' "${COMPREPLY[@]}"
      """,
      "bash", script,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    #expect(process.waitForExit() == 0)
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}

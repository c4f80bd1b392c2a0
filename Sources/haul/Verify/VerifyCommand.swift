import HaulCore

/// `haul verify MANIFEST`: checks every download's file under `-o` against its `size` and
/// `sha256`, sending no request. Uploads are not checked: the server's copy cannot be seen.
struct VerifyCommand {
  var manifest: String
  var output = "."
  var failed: String?

  init(_ parsed: ParsedArguments) throws(UsageError) {
    manifest = try RunOptions.manifestArgument(parsed, command: "verify")
    output = try RunOptions.outputDirectory(parsed, command: "verify")
    failed = try parsed.value("failed").map { (path) throws(UsageError) in
      try RunOptions.outputFile("failed", path, command: "verify")
    }
  }

  func execute() -> ExitCode {
    let input: ManifestInput
    do throws(ManifestError) {
      input = try ManifestInput(argument: manifest)
      _ = try input.manifest(output: output).validate()
    } catch {
      Console.error(error.description + "\n")
      return .usage
    }

    var good = 0
    var bad = 0
    var uploads = 0
    let failures = failed.map { FailedEntries(spoolingBeside: $0) }
    for entry in input.manifest(output: output).entries() {
      guard entry.operation == .download else {
        uploads += 1
        continue
      }
      let path = output == "." ? entry.path : output + "/" + entry.path
      if let problem = FileCheck.check(path: path, size: entry.size, sha256: entry.sha256) {
        bad += 1
        failures?.add(line: entry.line, text: entry.text)
        Console.error("\(entry.path): \(problem)\n")
      } else {
        good += 1
      }
    }

    var outputsWritten = true
    if let failed, let failures {
      do throws(ReportFileError) {
        try failures.write(to: failed)
      } catch {
        Console.error("haul: cannot write --failed: \(error)\n")
        outputsWritten = false
      }
    }
    var summary = "haul: \(good + bad) files checked: \(good) ok, \(bad) bad"
    if uploads > 0 { summary += " (\(uploads) uploads not checked)" }
    Console.error(summary + "\n")
    return bad == 0 && outputsWritten ? .ok : .failures
  }
}

import HaulCore

/// `haul verify MANIFEST`: checks every download's file under `-o` against its `size` and
/// every digest given (the line's and those of `--checksums` files), sending no request.
/// Uploads are not checked: the server's copy cannot be seen.
struct VerifyCommand {
  var manifest: String
  var output = "."
  var failed: String?
  /// `--checksums` files, read before the manifest.
  var checksums: [String] = []

  init(_ parsed: ParsedArguments) throws(UsageError) {
    manifest = try RunOptions.manifestArgument(parsed, command: "verify")
    output = try RunOptions.outputDirectory(parsed, command: "verify")
    checksums = try RunOptions.checksumFiles(parsed, command: "verify")
    failed = try parsed.value("failed").map { (path) throws(UsageError) in
      try RunOptions.outputFile("failed", path, command: "verify")
    }
  }

  func execute() -> ExitCode {
    let table: ChecksumTable
    do throws(ChecksumFileError) {
      table = try ChecksumTable(reading: checksums)
    } catch {
      Console.error(error.description + "\n")
      return .usage
    }
    let input: ManifestInput
    do throws(ManifestError) {
      input = try ManifestInput(argument: manifest)
      _ = try input.manifest(output: output, checksums: table).validate()
    } catch {
      Console.error(error.description + "\n")
      return .usage
    }

    var good = 0
    var bad = 0
    var uploads = 0
    let failures = failed.map { FailedEntries(spoolingBeside: $0) }
    for entry in input.manifest(output: output, checksums: table).entries() {
      guard entry.operation == .download else {
        uploads += 1
        continue
      }
      let path = output == "." ? entry.path : output + "/" + entry.path
      if let problem = FileCheck.check(
        path: path, size: entry.size, digests: entry.expectedDigestList)
      {
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

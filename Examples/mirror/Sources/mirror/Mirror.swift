import Foundation
import HaulCore
import HaulCurl

/// `mirror BASE_URL DIRECTORY`: downloads `BASE_URL/SHA256SUMS`, then every file it lists
/// into DIRECTORY, each checked against its digest. Prints one line per file; exits 0 when
/// every file is in place, 1 when one failed, 2 on a usage error.
@main struct Mirror {
  static func main() async {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count == 2, let base = URL(string: arguments.first!) else {
      print("usage: mirror BASE_URL DIRECTORY")
      exit(2)
    }
    let directory = arguments.last!
    let transport = CurlTransport()
    let options = SchedulerOptions(outputDirectory: directory, concurrency: 8)
    var failed = false
    do {
      // The list of files is a transfer too.
      let sums = try TransferList(
        [.download(from: base.appending(path: "SHA256SUMS"))], outputDirectory: directory)
      let listed = await Scheduler.run(sums, through: transport, options: options)
      if let failure = listed.failures.first {
        print("mirror: SHA256SUMS: \(failure.error?.description ?? "failed")")
        exit(1)
      }
      // Every file it lists, checked against its SHA-256 on the way in.
      let text = try String(contentsOfFile: directory + "/SHA256SUMS", encoding: .utf8)
      var transfers: [Transfer] = []
      for line in text.split(separator: "\n") {
        let hex = line.prefix { $0 != " " }
        let name = String(line.dropFirst(hex.count + 2))  // "HEX  name" or "HEX *name"
        transfers.append(
          try .download(
            from: base.appending(path: name), to: name, digests: [.sha256: String(hex)]))
      }
      let result = await Scheduler.run(
        try TransferList(transfers, outputDirectory: directory), through: transport,
        options: options)
      for outcome in result.outcomes {
        let why = outcome.error.map { " (\($0))" } ?? ""
        print("\(outcome.status) \(outcome.path) \(outcome.bytes) bytes\(why)")
      }
      failed = !result.failures.isEmpty
    } catch {
      // A transfer the manifest rules refuse: a SHA256SUMS naming "../x", say.
      print("mirror: \(error)")
      failed = true
    }
    await transport.shutdown()
    exit(failed ? 1 : 0)
  }
}

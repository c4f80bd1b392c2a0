import Foundation
import HaulCore
import HaulCurl

/// `publish DESTINATION_URL DIRECTORY FILE...`: uploads each FILE (relative to DIRECTORY)
/// to DESTINATION_URL/FILE with PUT. Prints one line per file; exits 0 when every upload
/// succeeded, 1 when one failed, 2 on a usage error.
@main struct Publish {
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count >= 3, let destination = URL(string: arguments[0]) else {
      print("usage: publish DESTINATION_URL DIRECTORY FILE...")
      exit(2)
    }
    let directory = arguments[1]
    let transport = CurlTransport()
    var failed = false
    do {
      let transfers = try arguments.dropFirst(2).map { file throws(InvalidTransfer) in
        try Transfer.upload(file, to: destination.appending(path: file))
      }
      let result = await Scheduler.run(
        try TransferList(transfers, outputDirectory: directory), through: transport,
        options: SchedulerOptions(outputDirectory: directory))
      for outcome in result.outcomes {
        let why = outcome.error.map { " (\($0))" } ?? ""
        print("\(outcome.status) \(outcome.path) \(outcome.bytes) bytes\(why)")
      }
      failed = !result.failures.isEmpty
    } catch {
      print("publish: \(error)")
      failed = true
    }
    await transport.shutdown()
    exit(failed ? 1 : 0)
  }
}

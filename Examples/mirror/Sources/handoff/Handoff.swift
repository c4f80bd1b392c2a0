// handoff: the background-session model with haul's daemon. A program hands its transfers
// to `haul serve` and exits; on its next start it learns what finished while it was away.
//
//   handoff submit STATE OUTPUT URL...   queue the URLs as one job, note its id and the
//                                        event it follows, and exit
//   handoff collect STATE                every event of that job since then, replayed by the
//                                        daemon, until the job ends; exit 0 if it completed
//
// The daemon is found as `haul add` finds it (HAUL_SOCKET, else the default socket).
import Foundation
import HaulClient

@main
struct Handoff {
  /// What `submit` leaves for `collect`: the job, and the last event before it was queued.
  struct Saved: Codable {
    var job: String
    var since: Int64
  }

  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    let client = DaemonClient()
    do {
      switch arguments.first {
      case "submit" where arguments.count >= 4:
        let since = try await client.stats().lastEventID ?? 0
        let job = try await client.submit(urls: Array(arguments[3...]), output: arguments[2])
        try JSONEncoder().encode(Saved(job: job.id, since: since))
          .write(to: URL(fileURLWithPath: arguments[1]))
        print("queued \(job.id): \(job.total) files")
      case "collect" where arguments.count == 2:
        let saved = try JSONDecoder().decode(
          Saved.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[1])))
        for try await event in client.events(since: saved.since) {
          if let entry = event.entry, entry.job == saved.job {
            print("\(event.type) \(entry.path)\(entry.code.map { " \($0)" } ?? "")")
          }
          if event.type == "job-ended", let job = event.job, job.id == saved.job {
            print("ended \(job.state): \(job.succeeded) ok, \(job.failed) failed")
            exit(job.state == .complete ? 0 : 1)
          }
        }
      default:
        FileHandle.standardError.write(
          Data("usage: handoff submit STATE OUTPUT URL... | handoff collect STATE\n".utf8))
        exit(2)
      }
    } catch {
      FileHandle.standardError.write(Data("handoff: \(error)\n".utf8))
      exit(1)
    }
  }
}

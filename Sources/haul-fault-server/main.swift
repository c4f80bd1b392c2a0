import Dispatch
import Foundation
import HaulTestSupport

/// A standalone `FaultServer` for soak runs and manual testing, and the soak's manifest.
///
///     haul-fault-server serve [--servers N]
///         starts N fault servers on 127.0.0.1 (kernel-chosen ports), prints one origin per
///         line, and serves until SIGINT or SIGTERM.
///     haul-fault-server manifest --origins O1,O2,... --count N [--fault-rate R] [--seed S]
///         [--sums FILE]
///         prints a manifest of N downloads spread over the origins, about R of them faulted
///         once at random (see `SoakManifest`); FILE gets `sha256sum -c` lines for them.
let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
  guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else {
    return nil
  }
  return arguments[index + 1]
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("haul-fault-server: \(message)\n".utf8))
  exit(2)
}

switch arguments.first {
case "serve":
  let count = option("servers").flatMap { Int($0) } ?? 1
  var servers: [FaultServer] = []
  for _ in 0..<max(1, count) {
    do {
      servers.append(try FaultServer.started(recordsRequests: false))
    } catch {
      fail("cannot start: \(error)")
    }
  }
  FileHandle.standardOutput.write(Data((servers.map(\.origin).joined(separator: "\n") + "\n").utf8))
  var sources: [any DispatchSourceSignal] = []
  for number in [SIGINT, SIGTERM] {
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler {
      for server in servers { server.stop() }
      exit(0)
    }
    source.resume()
    sources.append(source)
  }
  dispatchMain()
case "manifest":
  guard let origins = option("origins")?.split(separator: ",").map(String.init), !origins.isEmpty
  else { fail("manifest needs --origins") }
  guard let count = option("count").flatMap({ Int($0) }), count > 0 else {
    fail("manifest needs --count N")
  }
  var soak = SoakManifest(
    origins: origins, faultRate: option("fault-rate").flatMap { Double($0) } ?? 0.1,
    seed: option("seed").flatMap { UInt64($0) } ?? 1)
  let sumsHandle: FileHandle? = option("sums").flatMap { path in
    FileManager.default.createFile(atPath: path, contents: nil)
      ? FileHandle(forWritingAtPath: path) : nil
  }
  var out = ""
  var sumLines = ""
  for index in 0..<count {
    let entry = soak.entry(index)
    out += entry.line + "\n"
    sumLines += "\(entry.sha256)  \(entry.path)\n"
    if out.utf8.count > 1 << 16 {
      FileHandle.standardOutput.write(Data(out.utf8))
      sumsHandle?.write(Data(sumLines.utf8))
      out = ""
      sumLines = ""
    }
  }
  FileHandle.standardOutput.write(Data(out.utf8))
  sumsHandle?.write(Data(sumLines.utf8))
  FileHandle.standardError.write(Data((soak.tally + "\n").utf8))
default:
  fail("usage: haul-fault-server serve [--servers N] | manifest --origins LIST --count N ...")
}

import Foundation
import HaulTestSupport

/// A suite that plants symlinks in haul's output directory (`out/` of its temporary
/// folder) leading to `outside/` beside it, with a fault server to fetch from or send to.
protocol PlantedLinkSuite {
  var directory: TemporaryDirectory { get }
  var server: FaultServer { get }
}

extension PlantedLinkSuite {
  func cleanUp() {
    server.stop()
    directory.remove()
  }

  func out(_ path: String) -> String { directory.file("out/" + path) }
  func outside(_ path: String) -> String { directory.file("outside/" + path) }

  /// Makes `out/LINK` a symlink to `target`.
  func plant(_ link: String, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: out(link), withDestinationPath: target)
  }
}

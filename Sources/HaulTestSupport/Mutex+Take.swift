import Foundation
import Synchronization

extension Mutex where Value == Process? {
  /// Takes the fixture's process out, leaving none, so that only the first `stop()` of a
  /// fixture ends it and later ones do nothing.
  func take() -> Process? {
    withLock { process in
      defer { process = nil }
      return process
    }
  }
}

import Glibc
import HaulCore

/// Fits `-j` to the process's open-file limit at the start of `haul run`, so that a large
/// `-j` never runs into EMFILE halfway through a run.
///
/// `FileLimits.fit` raises the soft `RLIMIT_NOFILE` toward the hard limit when it is low;
/// only when even the hard limit is too low is `-j` lowered, and the user is told why and
/// how to lift it. A limit too low for even one transfer is refused before anything starts.
enum OpenFileLimit {
  /// What the run may do.
  enum Verdict: Equatable {
    /// Run with `concurrency`; `notice` (for standard error) says why it is below `-j`.
    case run(concurrency: Int, notice: String?)
    /// Not even one transfer fits: the message for standard error.
    case tooLow(String)
  }

  /// The fewest descriptors a run needs: the reserve plus one transfer's worth.
  static let minimum = FileLimits.reserve + FileLimits.perTransfer

  /// Raises the soft limit if needed and says what concurrency fits `requested`.
  static func fit(_ requested: Int) -> Verdict {
    let fitted = FileLimits.fit(concurrency: requested)
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
      return .run(concurrency: fitted, notice: nil)
    }
    let soft = Int(clamping: limit.rlim_cur)
    guard soft >= minimum else {
      return .tooLow(
        "haul: the open-file limit (\(soft) descriptors, see 'ulimit -n') is below the "
          + "\(minimum) haul needs for one transfer; nothing was transferred")
    }
    guard fitted < requested else { return .run(concurrency: requested, notice: nil) }
    return .run(
      concurrency: fitted,
      notice: "haul: the open-file limit (\(soft) descriptors, see 'ulimit -n') fits -j "
        + "\(fitted), not -j \(requested): running with -j \(fitted)")
  }
}

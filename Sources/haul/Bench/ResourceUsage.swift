import Glibc

/// The process's CPU time and peak resident memory, read with `getrusage(RUSAGE_SELF)`.
///
/// Both are process-wide: every thread counts (the curl loop, URLSession's threads, Swift's
/// executors). `ru_maxrss` is a high-water mark that never goes down, so before each run
/// `resetPeak()` asks Linux to restart it (`/proc/self/clear_refs`, value 5); when that is
/// refused the peak covers the whole process so far, and `peakIsPerRun` says so.
struct ResourceUsage {
  /// User plus system CPU seconds so far.
  var cpuSeconds: Double
  /// Peak resident set in bytes: `VmHWM` (since the last reset) when `afterReset`, else
  /// `ru_maxrss` (the whole process's life).
  var peakRSSBytes: Int64

  /// The usage now.
  static func now(afterReset: Bool) -> ResourceUsage {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu =
      Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
      + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    let maxRSS = Int64(usage.ru_maxrss) * 1024
    let peak = afterReset ? statusPeak() ?? maxRSS : maxRSS
    return ResourceUsage(cpuSeconds: cpu, peakRSSBytes: peak)
  }

  /// Restarts the peak resident set count; `false` when Linux refused.
  static func resetPeak() -> Bool {
    let fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return write(fd, "5", 1) == 1
  }

  /// `VmHWM` of `/proc/self/status` in bytes: the peak that `resetPeak` restarts.
  private static func statusPeak() -> Int64? {
    let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[..<count], as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kib = Int64(line.dropFirst(6).filter { $0.isNumber })
    else { return nil }
    return kib * 1024
  }
}

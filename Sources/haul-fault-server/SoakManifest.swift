import Foundation
import HaulCore
import HaulTestSupport

/// The soak's manifest: downloads of 512 B to 128 KiB of `TestContent` spread round-robin
/// over the origins, each with its `sha256` (and `size`, except where the fault needs it
/// absent); about `faultRate` of them are faulted on their first request only (`times=1`),
/// so every entry can succeed within its retries:
/// - 40 % a connection cut mid-body (`drop`),
/// - 25 % a short body: `Content-Length` larger than the body (`lie`; no `size` in the line),
/// - 20 % a 503 (no `Retry-After`: haul's own backoff),
/// - 15 % a stall of 3 s mid-body (`stall`; run haul with `--timeout` below 3).
///
/// Deterministic: the same seed gives the same manifest.
struct SoakManifest {
  let origins: [String]
  let faultRate: Double
  private var random: UInt64
  private var counts: [String: Int] = [:]

  init(origins: [String], faultRate: Double, seed: UInt64) {
    self.origins = origins
    self.faultRate = faultRate
    self.random = seed
  }

  struct Entry {
    var line: String
    var path: String
    var sha256: String
  }

  /// The entry for manifest index `index` (call in order).
  mutating func entry(_ index: Int) -> Entry {
    let size = Int64(512 + next() % (128 * 1024 - 512))
    let seed = UInt64(index) &* 0x9E37_79B9 &+ 17
    var options: [String] = []
    var declareSize = true
    if Double(next() % 1_000_000) / 1_000_000 < faultRate {
      let kind = next() % 100
      switch kind {
      case 0..<40:
        options = ["drop=\(1 + Int64(next() % UInt64(size - 1)))"]
        counts["drop", default: 0] += 1
      case 40..<65:
        options = ["lie=\(1 + next() % 4096)"]
        declareSize = false
        counts["short", default: 0] += 1
      case 65..<85:
        options = ["status=503"]
        counts["503", default: 0] += 1
      default:
        options = ["stall=\(next() % UInt64(size))", "stallSeconds=3"]
        counts["stall", default: 0] += 1
      }
      options.append("times=1")
    }
    let origin = origins[index % origins.count]
    let query = (["size=\(size)", "seed=\(seed)"] + options).joined(separator: "&")
    let path = "d\(index % 100)/f\(index).bin"
    let sha256 = TestContent.sha256(seed: seed, count: size)
    var line = #"{"url":"\#(origin)/data/f\#(index)?\#(query)","path":"\#(path)","#
    if declareSize { line += #""size":\#(size),"# }
    line += #""sha256":"\#(sha256)"}"#
    return Entry(line: line, path: path, sha256: sha256)
  }

  /// How many entries got each fault.
  var tally: String {
    let total = counts.values.reduce(0, +)
    let parts = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    return "faulted \(total): " + parts.joined(separator: ", ")
  }

  /// SplitMix64.
  private mutating func next() -> UInt64 {
    random &+= 0x9E37_79B9_7F4A_7C15
    var z = random
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

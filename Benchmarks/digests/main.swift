// Benchmarks/digests: what hashing costs, one digest and several at once.
//
// The package's `haul-digest-bench` target, linked with HaulCore, so it measures exactly the
// code the transfers call. Feeds SIZE MiB from one CHUNK-KiB buffer
// (as a transport's write callback does) and prints, for each set of algorithms, the time and
// throughput, the sum of its members' times alone (what "several at once" should cost), and
// the same set fed naively: each digest over the whole chunk in turn, without DigestSet's
// 64 KiB blocks.
import Foundation
import HaulCore

let arguments = CommandLine.arguments
let sizeMiB = arguments.count > 1 ? Int(arguments[1]) ?? 1024 : 1024
let chunkKiB = arguments.count > 2 ? Int(arguments[2]) ?? 1024 : 1024
let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkKiB << 10, alignment: 64)
var state: UInt64 = 0x9E37_79B9_7F4A_7C15
for index in 0..<chunk.count {
  state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
  chunk[index] = UInt8(truncatingIfNeeded: state >> 33)
}
let bytes = UnsafeRawBufferPointer(chunk)
let feeds = (sizeMiB << 20) / chunk.count

/// `value` with `places` decimals.
func fixed(_ value: Double, _ places: Int) -> String {
  String(format: "%.\(places)f", value)
}

/// The CPU time `work` takes on this thread: unlike the wall clock, not stretched by the other
/// processes of a shared machine.
func seconds(_ work: () -> Void) -> Double {
  func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
  let start = now()
  work()
  return now() - start
}

/// The best of `rounds` timings: the machine is shared, the minimum is the code's cost.
func best(_ rounds: Int = 3, _ work: () -> Void) -> Double {
  (0..<rounds).map { _ in seconds(work) }.min()!
}

@MainActor func timeSet(_ algorithms: [DigestAlgorithm]) -> Double {
  let set = DigestSet(algorithms)
  return best {
    set.reset()
    for _ in 0..<feeds { set.update(bytes) }
    _ = set.finalize()
  }
}

@MainActor func timeNaive(_ algorithms: [DigestAlgorithm]) -> Double {
  let digests = algorithms.map { StreamingDigest($0) }
  return best {
    for digest in digests { digest.reset() }
    for _ in 0..<feeds {
      for digest in digests { digest.update(bytes) }
    }
    for digest in digests { _ = digest.finalize() }
  }
}

if arguments.count > 3, arguments[3] == "once" {
  // One pass of the digests named (default: all) at once, for valgrind: its heap summary
  // counts the allocations, callgrind the instructions.
  let names = arguments.count > 4 ? arguments[4].split(separator: ",") : []
  let algorithms =
    names.isEmpty
    ? DigestAlgorithm.allCases : names.compactMap { DigestAlgorithm(rawValue: String($0)) }
  let set = DigestSet(algorithms)
  for _ in 0..<feeds { set.update(bytes) }
  print(set.finalize().map(\.hex).joined(separator: " "))
  exit(0)
}

let gib = Double(feeds * chunk.count) / Double(1 << 30)
print(
  "hashing \((feeds * chunk.count) >> 20) MiB in \(chunkKiB) KiB chunks; CPU seconds, best of 3")
print("| digests | seconds | GiB/s | sum alone | ratio | naive seconds |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
var alone: [DigestAlgorithm: Double] = [:]
for algorithm in DigestAlgorithm.allCases {
  let time = timeSet([algorithm])
  alone[algorithm] = time
  print("| \(algorithm.rawValue) | \(fixed(time, 3)) | \(fixed(gib / time, 2)) | | | |")
}
let sets: [[DigestAlgorithm]] = [
  [.sha256, .md5], [.sha256, .sha512], [.sha256, .sha1], DigestAlgorithm.allCases,
]
for set in sets {
  let time = timeSet(set)
  let sum = set.map { alone[$0]! }.reduce(0, +)
  let naive = timeNaive(set)
  let name = set.map(\.rawValue).joined(separator: "+")
  print(
    "| \(name) | \(fixed(time, 3)) | \(fixed(gib / time, 2)) | \(fixed(sum, 3))"
      + " | \(fixed(time / sum, 2)) | \(fixed(naive, 3)) |")
}

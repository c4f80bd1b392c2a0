import Foundation
import HaulCore

/// Deterministic test bytes: the same `seed` always yields the same stream, and any slice of
/// it can be produced without generating what comes before (so a server can answer a `Range`
/// request of a 1 GiB body without holding or replaying it).
///
/// The stream is SplitMix64 in counter mode: 8-byte word `i` is the SplitMix64 output for
/// `seed + (i + 1) * golden`, stored little-endian. That is a fast generator like xorshift, but
/// random-access, which ranges and resumes need.
public enum TestContent {
  /// Bytes produced per step when generating large bodies (also the file write chunk).
  public static let chunkSize = 256 * 1024

  /// The `count` bytes of stream `seed` starting at byte `offset`.
  public static func bytes(seed: UInt64, count: Int, offset: Int64 = 0) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      fill(UnsafeMutableRawBufferPointer(buffer), seed: seed, offset: offset)
      initialized = count
    }
  }

  /// Fills `buffer` with the bytes of stream `seed` that start at byte `offset`.
  public static func fill(_ buffer: UnsafeMutableRawBufferPointer, seed: UInt64, offset: Int64) {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
    precondition(offset >= 0, "negative content offset")
    var position = 0
    var word = UInt64(offset) / 8
    let skip = Int(UInt64(offset) % 8)
    if skip != 0 {
      var value = (mix(seed: seed, index: word) >> UInt64(skip * 8))
      while position < buffer.count && position < 8 - skip {
        base.storeBytes(
          of: UInt8(truncatingIfNeeded: value), toByteOffset: position, as: UInt8.self)
        value >>= 8
        position += 1
      }
      word &+= 1
    }
    while buffer.count - position >= 8 {
      base.storeBytes(
        of: mix(seed: seed, index: word).littleEndian, toByteOffset: position, as: UInt64.self)
      position += 8
      word &+= 1
    }
    if position < buffer.count {
      var value = mix(seed: seed, index: word)
      while position < buffer.count {
        base.storeBytes(
          of: UInt8(truncatingIfNeeded: value), toByteOffset: position, as: UInt8.self)
        value >>= 8
        position += 1
      }
    }
  }

  /// The SHA-256 (64 lowercase hex digits) of the first `count` bytes of stream `seed`,
  /// computed in chunks with `HaulCore.SHA256`.
  public static func sha256(seed: UInt64, count: Int64, offset: Int64 = 0) -> String {
    let hasher = SHA256()
    forEachChunk(seed: seed, count: count, offset: offset) { hasher.update($0) }
    return hasher.finalize()
  }

  /// Writes the first `count` bytes of stream `seed` to a new file at `path` (replacing any),
  /// chunk by chunk, and returns their SHA-256.
  @discardableResult
  public static func writeFile(at path: String, seed: UInt64, count: Int64) throws -> String {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw FixtureError("cannot create \(path): \(errnoText())") }
    defer { close(fd) }
    let hasher = SHA256()
    var failure: Int32 = 0
    forEachChunk(seed: seed, count: count, offset: 0) { chunk in
      guard failure == 0 else { return }
      hasher.update(chunk)
      if !writeAll(fd, chunk) { failure = errno }
    }
    guard failure == 0 else { throw FixtureError("cannot write \(path): \(errnoText(failure))") }
    return hasher.finalize()
  }

  /// Calls `body` with consecutive chunks (at most `chunkSize` bytes) of stream `seed`
  /// covering `count` bytes from `offset`. The buffer is reused between calls.
  public static func forEachChunk(
    seed: UInt64, count: Int64, offset: Int64, _ body: (UnsafeRawBufferPointer) -> Void
  ) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 8)
    defer { buffer.deallocate() }
    var done: Int64 = 0
    while done < count {
      let length = Int(min(Int64(chunkSize), count - done))
      let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
      fill(slice, seed: seed, offset: offset + done)
      body(UnsafeRawBufferPointer(slice))
      done += Int64(length)
    }
  }

  /// A seed derived from a name (FNV-1a), for routes that are given no explicit seed.
  public static func seed(for name: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in name.utf8 {
      hash ^= UInt64(byte)
      hash &*= 0x100_0000_01b3
    }
    return hash
  }

  @inline(__always)
  static func mix(seed: UInt64, index: UInt64) -> UInt64 {
    var z = seed &+ (index &+ 1) &* 0x9e37_79b9_7f4a_7c15
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }
}

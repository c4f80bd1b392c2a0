#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A lock on one byte of a file, held by an open file description (Linux's `F_OFD_*` locks)
/// rather than by the process: it conflicts with a lock taken through another description,
/// in this process or another, and closing some other descriptor of the file keeps it.
///
/// The claims of `EntryLocks` and the presence of `OtherRuns` are such locks.
enum ByteLock {
  /// The kinds of lock, Linux's `F_RDLCK`, `F_WRLCK` and `F_UNLCK`.
  enum Kind: Int16 {
    case read = 0
    case write = 1
    case none = 2
  }

  /// Linux's `F_OFD_GETLK`, `F_OFD_SETLK` and `F_OFD_SETLKW`, which Swift's Glibc module does
  /// not import.
  private static let getLock: Int32 = 36
  private static let setLock: Int32 = 37
  private static let setLockWaiting: Int32 = 38

  /// Takes (or, with `.none`, lets go of) `kind` on the byte at `offset`; `waiting` blocks
  /// until it is free. `fcntl`'s result: 0, or -1 with `errno` set (`EAGAIN` when another
  /// description holds a conflicting lock).
  static func set(_ kind: Kind, on fd: Int32, at offset: Int64, waiting: Bool = false) -> Int32 {
    var request = request(kind, at: offset)
    return withUnsafeMutablePointer(to: &request) {
      fcntl(fd, waiting ? setLockWaiting : setLock, $0)
    }
  }

  /// Whether another description holds a lock on the byte at `offset` that `kind` would
  /// conflict with; `nil` when the kernel cannot tell.
  static func isHeld(against kind: Kind, on fd: Int32, at offset: Int64) -> Bool? {
    var query = request(kind, at: offset)
    guard withUnsafeMutablePointer(to: &query, { fcntl(fd, getLock, $0) }) == 0 else {
      return nil
    }
    return query.l_type != Kind.none.rawValue
  }

  private static func request(_ kind: Kind, at offset: Int64) -> flock {
    var request = flock()
    request.l_type = kind.rawValue
    request.l_whence = Int16(SEEK_SET)
    request.l_start = off_t(offset)
    request.l_len = 1
    request.l_pid = 0
    return request
  }
}

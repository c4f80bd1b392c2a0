import Foundation

/// Turns the bytes of a `text/event-stream` body into events, as the WHATWG HTML standard's
/// "Server-sent events" section parses them: lines end with LF, CR LF or CR; a blank line
/// ends an event; `event:`, `data:` (lines joined with LF), `id:` and `retry:` fields; lines
/// starting with `:` are comments (the daemon's keep-alives); an event without data is not
/// dispatched.
///
/// A value: feed it the chunks of one connection in order, and `reset` it before the next
/// connection. It keeps `lastEventID` across connections: the id to resume from.
struct EventStreamParser {
  /// One event as the stream carried it.
  struct Event: Equatable {
    /// The event's own `id:` field, when it had one that is a number.
    var id: Int64?
    var type: String
    var data: Data
  }

  /// The id of the last event dispatched that carried one (or the id the parser was
  /// created with): a reconnection sends it as `Last-Event-ID`.
  private(set) var lastEventID: Int64?
  /// The reconnection delay the stream asked for (`retry:`), in milliseconds.
  private(set) var retryMilliseconds: Int?

  /// The longest line kept; the rest of a longer one is dropped. A job's JSON is well under
  /// this, so only a broken stream reaches it, and it cannot make the client hold unbounded
  /// memory.
  static let maxLineBytes = 4 << 20

  private var line: [UInt8] = []
  private var lineTooLong = false
  /// The last byte was a CR, so an LF right after it ends no second line.
  private var afterCR = false
  /// No byte of this connection read yet (a leading byte order mark is skipped).
  private var atStart = true
  private var type = ""
  private var data: [UInt8] = []
  private var hasData = false
  private var id: Int64?
  private var hasID = false

  init(lastEventID: Int64? = nil) {
    self.lastEventID = lastEventID
  }

  /// Forgets a half-read line and event (a stream cut mid-event drops that event), keeping
  /// `lastEventID` and `retryMilliseconds`.
  mutating func reset() {
    line.removeAll(keepingCapacity: true)
    lineTooLong = false
    afterCR = false
    atStart = true
    endEvent()
  }

  /// Parses `bytes`, calling `dispatch` with each event completed; stops early and returns
  /// `false` when `dispatch` does.
  ///
  /// Line ends are found with `memchr`, and a line that lies whole in `bytes` (nearly every
  /// line of a local daemon's stream) is read where it lies: only a line split between two
  /// chunks is copied, into `line`.
  mutating func feed(
    _ bytes: UnsafeRawBufferPointer, dispatch: (Event) -> Bool
  ) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let count = bytes.count
    var index = 0
    if atStart, count > 0 {
      atStart = false
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }
    while index < count {
      if afterCR {
        afterCR = false
        if bytes[index] == 0x0A {
          index += 1
          continue
        }
      }
      guard let end = Self.lineEnd(base + index, count - index).map({ index + $0 }) else {
        hold(UnsafeRawBufferPointer(rebasing: bytes[index...]))
        return true
      }
      afterCR = bytes[end] == 0x0D
      let piece = UnsafeRawBufferPointer(rebasing: bytes[index..<end])
      index = end + 1
      let event: Event?
      if line.isEmpty, !lineTooLong {
        event = endLine(piece, tooLong: piece.count > Self.maxLineBytes)
      } else {
        hold(piece)
        let tooLong = lineTooLong
        var held: [UInt8] = []
        swap(&held, &line)
        event = held.withUnsafeBytes { endLine($0, tooLong: tooLong) }
        held.removeAll(keepingCapacity: true)
        swap(&held, &line)
        lineTooLong = false
      }
      if let event, !dispatch(event) { return false }
    }
    return true
  }

  /// The offset of the first CR or LF among `count` bytes at `start`, if any.
  private static func lineEnd(_ start: UnsafeRawPointer, _ count: Int) -> Int? {
    let lineFeed = memchr(start, 0x0A, count).map { start.distance(to: $0) }
    let carriageReturn = memchr(start, 0x0D, lineFeed ?? count).map { start.distance(to: $0) }
    return carriageReturn ?? lineFeed
  }

  /// Keeps the start of a line that goes on in the next chunk, up to `maxLineBytes`.
  private mutating func hold(_ bytes: UnsafeRawBufferPointer) {
    let room = Self.maxLineBytes - line.count
    if bytes.count > room { lineTooLong = true }
    line.append(contentsOf: bytes.prefix(max(room, 0)))
  }

  /// Processes one line, without its end; returns the event it completed, if any.
  private mutating func endLine(_ line: UnsafeRawBufferPointer, tooLong: Bool) -> Event? {
    guard !line.isEmpty else { return dispatchEvent() }
    guard !tooLong, line[0] != 0x3A else { return nil }
    let field: UnsafeRawBufferPointer
    var value: UnsafeRawBufferPointer
    if let colon = line.firstIndex(of: 0x3A) {
      field = UnsafeRawBufferPointer(rebasing: line[..<colon])
      value = UnsafeRawBufferPointer(rebasing: line[(colon + 1)...])
      if value.first == 0x20 { value = UnsafeRawBufferPointer(rebasing: value.dropFirst()) }
    } else {
      field = line
      value = UnsafeRawBufferPointer(start: nil, count: 0)
    }
    if Self.field(field, is: "event") {
      type = String(decoding: value, as: UTF8.self)
    } else if Self.field(field, is: "data") {
      if hasData { data.append(0x0A) }
      data.append(contentsOf: value)
      hasData = true
    } else if Self.field(field, is: "id") {
      guard !value.contains(0) else { return nil }
      id = Self.number(value)
      hasID = true
    } else if Self.field(field, is: "retry") {
      if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
        let milliseconds = Int(String(decoding: value, as: UTF8.self))
      {
        retryMilliseconds = milliseconds
      }
    }
    return nil
  }

  /// Whether a line's field name is `name`: its bytes compared, without making a string.
  private static func field(_ field: UnsafeRawBufferPointer, is name: StaticString) -> Bool {
    field.count == name.utf8CodeUnitCount
      && memcmp(field.baseAddress!, name.utf8Start, field.count) == 0
  }

  /// The number `text` spells, as `Int64(String)` reads it; plain digits (every id the daemon
  /// sends) without making a string.
  private static func number(_ text: UnsafeRawBufferPointer) -> Int64? {
    guard !text.isEmpty, text.count <= 18, text.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return Int64(String(decoding: text, as: UTF8.self))
    }
    return text.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
  }

  /// Ends the event at a blank line: dispatched when it has data.
  private mutating func dispatchEvent() -> Event? {
    defer { endEvent() }
    if hasID, let id { lastEventID = id }
    guard hasData else { return nil }
    return Event(
      id: hasID ? id : nil, type: type.isEmpty ? "message" : type,
      data: data.withUnsafeBytes { Data($0) })
  }

  private mutating func endEvent() {
    type = ""
    data.removeAll(keepingCapacity: true)
    hasData = false
    id = nil
    hasID = false
  }
}

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
  mutating func feed(
    _ bytes: UnsafeRawBufferPointer, dispatch: (Event) -> Bool
  ) -> Bool {
    var index = bytes.startIndex
    if atStart, !bytes.isEmpty {
      atStart = false
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
    }
    while index < bytes.endIndex {
      let byte = bytes[index]
      index += 1
      if byte == 0x0A, afterCR {
        afterCR = false
        continue
      }
      afterCR = byte == 0x0D
      if byte == 0x0A || byte == 0x0D {
        if let event = endLine(), !dispatch(event) { return false }
      } else if line.count < Self.maxLineBytes {
        line.append(byte)
      } else {
        lineTooLong = true
      }
    }
    return true
  }

  /// Processes the line just ended; returns the event it completed, if any.
  private mutating func endLine() -> Event? {
    defer {
      line.removeAll(keepingCapacity: true)
      lineTooLong = false
    }
    guard !line.isEmpty else { return dispatchEvent() }
    guard !lineTooLong, line[0] != 0x3A else { return nil }
    let field: ArraySlice<UInt8>
    var value: ArraySlice<UInt8>
    if let colon = line.firstIndex(of: 0x3A) {
      field = line[..<colon]
      value = line[(colon + 1)...]
      if value.first == 0x20 { value = value.dropFirst() }
    } else {
      field = line[...]
      value = []
    }
    switch String(decoding: field, as: UTF8.self) {
    case "event":
      type = String(decoding: value, as: UTF8.self)
    case "data":
      if hasData { data.append(0x0A) }
      data.append(contentsOf: value)
      hasData = true
    case "id":
      guard !value.contains(0) else { break }
      id = Int64(String(decoding: value, as: UTF8.self))
      hasID = true
    case "retry":
      let text = String(decoding: value, as: UTF8.self)
      if !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
        let milliseconds = Int(text)
      {
        retryMilliseconds = milliseconds
      }
    default:
      break
    }
    return nil
  }

  /// Ends the event at a blank line: dispatched when it has data.
  private mutating func dispatchEvent() -> Event? {
    defer { endEvent() }
    if hasID, let id { lastEventID = id }
    guard hasData else { return nil }
    return Event(
      id: hasID ? id : nil, type: type.isEmpty ? "message" : type, data: Data(data))
  }

  private mutating func endEvent() {
    type = ""
    data.removeAll(keepingCapacity: true)
    hasData = false
    id = nil
    hasID = false
  }
}

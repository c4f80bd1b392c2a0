import HaulCore

/// Renders the live status area: an overall line, then up to `maxActive` transfers in flight,
/// each line fitted to the terminal's width (a line that wrapped would break redrawing in
/// place). Pure: the same state and size give the same lines.
struct TerminalFrame {
  var columns: Int
  var rows: Int
  var color: Bool
  var maxActive = 5

  func lines(_ state: ProgressState) -> [String] {
    let width = max(20, columns - 1)
    var lines = [overall(state, width: width)]
    let room = max(0, min(maxActive, rows - 3))
    // Entries already moving bytes first: the scheduler lists entries waiting for a slot too.
    let moving = state.active.filter { $0.bytes > 0 } + state.active.filter { $0.bytes <= 0 }
    let shown = moving.prefix(room)
    let sizes = shown.map(Self.size)
    let sizeWidth = sizes.map(TextWidth.columns).max() ?? 0
    for (active, size) in zip(shown, sizes) {
      lines.append(transfer(active, size: pad(size, sizeWidth), width: width))
    }
    let hidden = state.active.count - shown.count
    if hidden > 0 {
      lines.append(TextWidth.keepingStart("   … and \(hidden) more", width: width))
    }
    return lines
  }

  /// The overall line: percentage, bar, files, bytes over the sizes known (and how many
  /// sizes are not known yet), rate, time left, failures. Where the width is short, the
  /// count of unknown sizes is said in fewer words, then the word "files" goes, then the bar.
  private func overall(_ state: ProgressState, width: Int) -> String {
    let bytes = Format.bytes(state.completedBytes) + " / " + Format.bytes(state.expectedBytes)
    let unknown = state.unknownSizes
    let candidates: [(unknown: String, files: String)] =
      unknown == 0
      ? [("", " files"), ("", "")]
      : [
        (" + \(unknown) \(unknown == 1 ? "file" : "files") of unknown size", " files"),
        (" + \(unknown) unknown", " files"), (" + \(unknown) unknown", ""),
      ]
    let failedText = state.failed > 0 ? "  \(state.failed) failed" : ""
    let percent = pad(Format.percent(state.fraction), 4)
    func stats(_ candidate: (unknown: String, files: String)) -> String {
      "\(state.finished)/\(state.total)\(candidate.files)  \(bytes)\(candidate.unknown)  "
        + "\(Format.rate(state.rate.bytesPerSecond))  "
        + "ETA \(Format.clock(state.estimatedSecondsLeft))"
    }
    for candidate in candidates {
      let plain = stats(candidate)
      let barWidth = min(
        40,
        width - TextWidth.columns(plain) - TextWidth.columns(failedText)
          - TextWidth.columns(percent) - 3)
      if barWidth >= 8 {
        return percent + " " + bar(state.fraction, width: barWidth) + "  " + plain
          + paint(failedText, "31")
      }
    }
    return TextWidth.keepingStart(
      percent + "  " + stats(candidates[candidates.count - 1]) + failedText, width: width)
  }

  /// `430 MiB / 1.00 GiB`, or `430 MiB` while the transfer's size is unknown.
  private static func size(_ active: ProgressSnapshot.Active) -> String {
    guard let expected = active.entry.expectedBytes else { return Format.bytes(active.bytes) }
    return Format.bytes(active.bytes) + " / " + Format.bytes(expected)
  }

  /// One transfer in flight: direction, percentage and bar (when its size is known), bytes
  /// over its size, and its path cut to the width (keeping the file name).
  private func transfer(_ active: ProgressSnapshot.Active, size: String, width: Int) -> String {
    let arrow = active.entry.operation == .upload ? "↑" : "↓"
    let fraction = active.entry.expectedBytes.map { expected in
      expected > 0 ? Double(active.bytes) / Double(expected) : 1
    }
    let percent = pad(fraction.map(Format.percent) ?? "", 4)
    let barText = fraction.map { bar($0, width: 12) } ?? String(repeating: " ", count: 12)
    let prefix = "  \(arrow) \(percent) "
    let used = TextWidth.columns(prefix) + 12 + 2 + TextWidth.columns(size) + 2
    let name = TextWidth.keepingEnd(active.entry.path, width: max(8, width - used))
    return prefix + barText + "  " + size + "  " + name
  }

  /// A bar of `width` columns filled to `fraction`, in eighths of a column.
  private func bar(_ fraction: Double, width: Int) -> String {
    let eighths = Int((min(max(fraction, 0), 1) * Double(width * 8)).rounded(.down))
    let full = eighths / 8
    let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    var filled = String(repeating: "█", count: full)
    var empty = width - full
    if full < width, eighths % 8 > 0 {
      filled += partials[eighths % 8]
      empty -= 1
    }
    return paint(filled, "36") + String(repeating: "░", count: empty)
  }

  private func paint(_ text: String, _ code: String) -> String {
    guard color, !text.isEmpty else { return text }
    return "\u{1B}[\(code)m" + text + "\u{1B}[0m"
  }

  private func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}

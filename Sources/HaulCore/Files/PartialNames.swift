/// The names of a download's side files in its destination's folder: the partial file, its
/// resume state and the state's temporary file, made from the destination's name so that a
/// rerun finds them again.
///
/// They are the destination's name with a suffix (`NAME.haul-partial`, `NAME.haul-state`,
/// `NAME.haul-state.tmp`) while the longest of them fits the file system's name limit; a
/// longer name keeps as much of its start as fits (cut between characters) and adds a dash
/// and the first 16 hex digits of the SHA-256 of the whole name, so every side file fits and
/// two long names with the same start still get different files. Every suffix differs from
/// the destination, so no side file is ever named as the destination is.
package struct PartialNames: Sendable, Hashable {
  package let partial: String
  package let state: String
  package let stateTemporary: String

  /// Linux's limit on one name (`NAME_MAX`), where the file system says none.
  package static let defaultLimit = 255
  static let partialSuffix = ".haul-partial"
  static let stateSuffix = ".haul-state"
  static let temporarySuffix = ".tmp"
  /// The hex digits of the whole name's SHA-256 that a shortened name carries.
  static let hashDigits = 16

  /// The side files of the destination `leaf`, for a folder whose names may be at most
  /// `limit` bytes long.
  package init(leaf: String, limit: Int = PartialNames.defaultLimit) {
    let stem = Self.stem(of: leaf, limit: limit)
    partial = stem + Self.partialSuffix
    state = stem + Self.stateSuffix
    stateTemporary = state + Self.temporarySuffix
  }

  /// `leaf` itself when its longest side file fits `limit`, else its start and its hash.
  static func stem(of leaf: String, limit: Int) -> String {
    let longest = stateSuffix.utf8.count + temporarySuffix.utf8.count
    guard leaf.utf8.count + longest > limit else { return leaf }
    let room = max(0, limit - longest - 1 - hashDigits)
    var kept = 0
    for scalar in leaf.unicodeScalars {
      let width = String(scalar).utf8.count
      guard kept + width <= room else { break }
      kept += width
    }
    let start = String(decoding: leaf.utf8.prefix(kept), as: UTF8.self)
    return start + "-" + SHA256.hex(of: leaf.utf8).prefix(hashDigits)
  }
}

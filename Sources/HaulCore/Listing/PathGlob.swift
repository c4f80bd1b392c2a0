/// A pattern of `--include`/`--exclude`, matched against a file's whole path relative to
/// the folder entry (`a/b/c.txt`).
///
/// `*` matches any run of characters within a segment, `?` one character within a
/// segment, `[abc]`, `[a-z]` and `[!abc]` (or `[^abc]`) one character of a class within a
/// segment, `**` any run of characters across segments, and `**/` also no folder at all
/// (`a/**/b` takes `a/b`, `**/x` takes `x`); `\` takes the next character as it is.
/// Characters are Unicode scalars, compared exactly.
package struct PathGlob: Sendable, Hashable, CustomStringConvertible {
  private enum Token: Sendable, Hashable {
    case literal(Unicode.Scalar)
    /// `?`
    case one
    /// `*`
    case star
    /// `**`
    case globstar
    /// `**/`: any run of whole segments, none included.
    case folders
    /// `[…]`: the ranges it holds, or all others when negated.
    case oneOf([ClosedRange<Unicode.Scalar>], negated: Bool)
  }

  private let tokens: [Token]
  /// The pattern as given.
  package let description: String

  /// Why a pattern is refused.
  package struct Problem: Error, Sendable, Hashable {
    package var reason: String
  }

  /// Reads `pattern`; throws for an empty one, an unclosed `[`, or a `\` at its end.
  package init(_ pattern: String) throws(Problem) {
    guard !pattern.isEmpty else { throw Problem(reason: "the pattern is empty") }
    let scalars = Array(pattern.unicodeScalars)
    var tokens: [Token] = []
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      index += 1
      switch scalar {
      case "?": tokens.append(.one)
      case "*":
        guard index < scalars.count, scalars[index] == "*" else {
          tokens.append(.star)
          continue
        }
        while index < scalars.count, scalars[index] == "*" { index += 1 }
        if index < scalars.count, scalars[index] == "/" {
          index += 1
          tokens.append(.folders)
        } else {
          tokens.append(.globstar)
        }
      case "[": tokens.append(try Self.readClass(scalars, &index))
      case "\\":
        guard index < scalars.count else {
          throw Problem(reason: "the pattern ends in a \\ that escapes nothing")
        }
        tokens.append(.literal(scalars[index]))
        index += 1
      default: tokens.append(.literal(scalar))
      }
    }
    self.tokens = tokens
    description = pattern
  }

  /// Reads a class whose `[` is just before `index`, leaving `index` after its `]`.
  private static func readClass(_ scalars: [Unicode.Scalar], _ index: inout Int)
    throws(Problem) -> Token
  {
    var negated = false
    if index < scalars.count, scalars[index] == "!" || scalars[index] == "^" {
      negated = true
      index += 1
    }
    var ranges: [ClosedRange<Unicode.Scalar>] = []
    var first = true
    while index < scalars.count {
      var low = scalars[index]
      index += 1
      if low == "]" && !first { return .oneOf(ranges, negated: negated) }
      first = false
      if low == "\\", index < scalars.count {
        low = scalars[index]
        index += 1
      }
      if index + 1 < scalars.count, scalars[index] == "-", scalars[index + 1] != "]" {
        var high = scalars[index + 1]
        index += 2
        if high == "\\", index < scalars.count {
          high = scalars[index]
          index += 1
        }
        guard low <= high else { throw Problem(reason: "the class range \(low)-\(high) is empty") }
        ranges.append(low...high)
      } else {
        ranges.append(low...low)
      }
    }
    throw Problem(reason: "a [ is not closed")
  }

  /// Whether the whole of `path` matches.
  package func matches(_ path: String) -> Bool {
    let scalars = Array(path.unicodeScalars)
    var failed = Set<Int>()
    return match(0, scalars, 0, &failed)
  }

  /// Whether `tokens[token...]` matches `path[at...]`; `failed` remembers the pairs that do
  /// not (as `token * (path.count + 1) + at`), so that no pair is tried twice.
  private func match(
    _ token: Int, _ path: [Unicode.Scalar], _ at: Int, _ failed: inout Set<Int>
  ) -> Bool {
    let key = token * (path.count + 1) + at
    if failed.contains(key) { return false }
    let result = matchOnce(token, path, at, &failed)
    if !result { failed.insert(key) }
    return result
  }

  private func matchOnce(
    _ token: Int, _ path: [Unicode.Scalar], _ at: Int, _ failed: inout Set<Int>
  ) -> Bool {
    guard token < tokens.count else { return at == path.count }
    switch tokens[token] {
    case .literal(let scalar):
      return at < path.count && path[at] == scalar && match(token + 1, path, at + 1, &failed)
    case .one:
      return at < path.count && path[at] != "/" && match(token + 1, path, at + 1, &failed)
    case .oneOf(let ranges, let negated):
      guard at < path.count, path[at] != "/" else { return false }
      let inside = ranges.contains { $0.contains(path[at]) }
      return inside != negated && match(token + 1, path, at + 1, &failed)
    case .star:
      var end = at
      while true {
        if match(token + 1, path, end, &failed) { return true }
        guard end < path.count, path[end] != "/" else { return false }
        end += 1
      }
    case .globstar:
      for end in at...path.count where match(token + 1, path, end, &failed) { return true }
      return false
    case .folders:
      // No folder, or any run of segments that ends in a `/`.
      if match(token + 1, path, at, &failed) { return true }
      for end in at..<path.count where path[end] == "/" {
        if match(token + 1, path, end + 1, &failed) { return true }
      }
      return false
    }
  }
}

/// `--include` and `--exclude` together: a file is taken when it matches an include (or
/// none is given) and no exclude.
package struct PathFilter: Sendable, Hashable {
  package var include: [PathGlob]
  package var exclude: [PathGlob]

  package init(include: [PathGlob] = [], exclude: [PathGlob] = []) {
    self.include = include
    self.exclude = exclude
  }

  /// Whether the file at `relativePath` is taken.
  package func takes(_ relativePath: String) -> Bool {
    (include.isEmpty || include.contains { $0.matches(relativePath) })
      && !exclude.contains { $0.matches(relativePath) }
  }

  /// Whether it takes every file.
  package var takesAll: Bool { include.isEmpty && exclude.isEmpty }
}

/// Digests of one file, by algorithm: each as lowercase hex.
///
/// A small fixed value (one optional string per algorithm, no dictionary), so that every
/// manifest entry and outcome can carry one without an allocation of its own. Iterates in
/// the canonical order of `DigestAlgorithm`.
public struct DigestValues: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  private var sha256: String?
  private var sha512: String?
  private var sha1: String?
  private var md5: String?

  /// No digest.
  public init() {}

  /// The digests of `elements`; for an algorithm given twice, the last one.
  public init(dictionaryLiteral elements: (DigestAlgorithm, String)...) {
    for (algorithm, hex) in elements { self[algorithm] = hex }
  }

  /// The digest of `algorithm`, if known. Callers store lowercase hex.
  public subscript(_ algorithm: DigestAlgorithm) -> String? {
    get {
      switch algorithm {
      case .sha256: sha256
      case .sha512: sha512
      case .sha1: sha1
      case .md5: md5
      }
    }
    set {
      switch algorithm {
      case .sha256: sha256 = newValue
      case .sha512: sha512 = newValue
      case .sha1: sha1 = newValue
      case .md5: md5 = newValue
      }
    }
  }

  /// Whether no digest is known.
  public var isEmpty: Bool { sha256 == nil && sha512 == nil && sha1 == nil && md5 == nil }

  /// The algorithms with a digest, in canonical order.
  public var algorithms: [DigestAlgorithm] { map(\.algorithm) }

  /// These digests with `other`'s added for the algorithms these lack.
  public func filling(from other: DigestValues) -> DigestValues {
    guard !other.isEmpty else { return self }
    var merged = self
    merged.sha256 = sha256 ?? other.sha256
    merged.sha512 = sha512 ?? other.sha512
    merged.sha1 = sha1 ?? other.sha1
    merged.md5 = md5 ?? other.md5
    return merged
  }

  public func makeIterator() -> Iterator {
    Iterator(values: self)
  }

  /// Walks the known digests in canonical order.
  public struct Iterator: IteratorProtocol {
    let values: DigestValues
    var position = 0

    public mutating func next() -> (algorithm: DigestAlgorithm, hex: String)? {
      // By position rather than through `allCases`, an array made anew at each call.
      while let algorithm = Self.algorithm(at: position) {
        position += 1
        if let hex = values[algorithm] { return (algorithm, hex) }
      }
      return nil
    }

    /// The algorithm at `position` in canonical order (`DigestAlgorithm.allCases`).
    private static func algorithm(at position: Int) -> DigestAlgorithm? {
      switch position {
      case 0: .sha256
      case 1: .sha512
      case 2: .sha1
      case 3: .md5
      default: nil
      }
    }
  }
}

/// A value kept behind one reference, so that copying it costs one retain however many
/// strings and arrays it holds; a write copies it first when the reference is shared.
///
/// Why: a transfer's request and its manifest entry are copied several times on their way
/// through a run (the job, the attempt, the redirect walk, the exchange). Copied field by
/// field, each copy would retain and release every string and array in it, an atomic
/// operation each.
///
/// Threading: a `Sendable` value when `Value` is. The box itself is only written while
/// uniquely referenced (`isKnownUniquelyReferenced`), so no two threads ever share a box
/// that one of them writes.
package struct CopyOnWriteBox<Value> {
  private final class Storage {
    /// Unchecked: the value is only written while the box holds the sole reference (the
    /// `_modify` below), so no access can overlap a write, and the runtime check would run
    /// on every field read.
    @exclusivity(unchecked) var value: Value
    init(_ value: Value) { self.value = value }
  }

  private var storage: Storage

  package init(_ value: Value) {
    storage = Storage(value)
  }

  package var value: Value {
    _read { yield storage.value }
    _modify {
      if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.value) }
      yield &storage.value
    }
  }
}

// unchecked: a shared storage is never written (`value` copies it first), so only the value's
// own sendability matters.
extension CopyOnWriteBox: @unchecked Sendable where Value: Sendable {}

extension CopyOnWriteBox: Equatable where Value: Equatable {
  package static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.storage === rhs.storage || lhs.value == rhs.value
  }
}

extension CopyOnWriteBox: Hashable where Value: Hashable {
  package func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// A value that one thread owns (a loop's), with the owner written down: every access checks,
/// in debug builds, that it runs on that thread (swift-nio's `NIOLoopBound`); release builds
/// read and write the value directly and pay nothing.
///
/// The owner is the thread that makes it, or the one that `adopt`s it after a hand-over. As a
/// property wrapper (`@LoopBound var active = …`) it turns "only the loop touches this" from
/// a comment into a check that every debug run makes, at every use of the property.
@propertyWrapper
package struct LoopBound<Value> {
  private var owner = OwningThread()
  private var storage: Value

  /// Holds `value`, owned by the calling thread.
  @inline(__always)
  package init(wrappedValue value: Value) {
    storage = value
  }

  /// The value; reached on the owning thread only.
  package var wrappedValue: Value {
    @inline(__always)
    _read {
      owner.check("a loop-bound \(Value.self)")
      yield storage
    }
    @inline(__always)
    _modify {
      owner.check("a loop-bound \(Value.self)")
      yield &storage
    }
  }

  /// Whether the calling thread owns the value; always `true` in release builds.
  package var isOwnedHere: Bool { owner.isCurrent }

  /// Makes the calling thread the owner: the value was handed to it through a lock or a
  /// mailbox that orders the move.
  package mutating func adopt() {
    owner.adopt()
  }
}

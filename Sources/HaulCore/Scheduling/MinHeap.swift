/// A binary min-heap: the smallest element first, `push` and `pop` in O(log n).
struct MinHeap<Element: Comparable & Sendable>: Sendable {
  private var elements: [Element] = []

  var isEmpty: Bool { elements.isEmpty }
  var count: Int { elements.count }
  /// The smallest element, if any.
  var first: Element? { elements.first }

  mutating func push(_ element: Element) {
    elements.append(element)
    var child = elements.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard elements[child] < elements[parent] else { break }
      elements.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns the smallest element.
  @discardableResult
  mutating func pop() -> Element? {
    guard !elements.isEmpty else { return nil }
    elements.swapAt(0, elements.count - 1)
    let smallest = elements.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < elements.count else { break }
      var smaller = left
      if left + 1 < elements.count, elements[left + 1] < elements[left] { smaller = left + 1 }
      guard elements[smaller] < elements[parent] else { break }
      elements.swapAt(smaller, parent)
      parent = smaller
    }
    return smallest
  }

  mutating func removeAll() { elements.removeAll() }
}

/// Elements kept in increasing order in chunks of at most `chunkCapacity`: a one-level
/// B+-tree. An insert or a removal moves at most one chunk's elements (and, when a chunk
/// splits or empties, one reference per chunk); a lookup is a binary search over the chunks'
/// last elements, then within one chunk; a walk in either direction is sequential.
///
/// Elements must be distinct under `==` (an index makes them so with a sequence number) and
/// ordered by a strict total order.
struct SortedChunks<Element: Comparable & Sendable>: Sendable {
    /// Large enough that the chunk list stays short (4,000 references for a million elements),
    /// small enough that an insert moves a few kilobytes.
    static var chunkCapacity: Int { 256 }

    private var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    /// Adds an element.
    /// - Complexity: O(log *n* + `chunkCapacity`); appending in increasing order fills each
    ///   chunk in turn.
    mutating func insert(_ element: Element) {
        count += 1
        guard let lastChunk = chunks.indices.last else {
            chunks = [[element]]
            return
        }
        let chunk = chunkIndex(for: element)
        let position = Self.firstIndex(in: chunks[chunk]) { $0 < element }
        if chunk == lastChunk, position == chunks[chunk].count, chunks[chunk].count >= Self.chunkCapacity {
            chunks.append([element])   // appending in order: leave the full chunk full
            return
        }
        chunks[chunk].insert(element, at: position)
        if chunks[chunk].count > Self.chunkCapacity {
            let upper = Array(chunks[chunk][(Self.chunkCapacity / 2)...])
            chunks[chunk].removeSubrange((Self.chunkCapacity / 2)...)
            chunks.insert(upper, at: chunk + 1)
        }
    }

    /// Removes an element equal to `element`; `false` when there is none.
    /// - Complexity: O(log *n* + `chunkCapacity`).
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard !chunks.isEmpty else { return false }
        let chunk = chunkIndex(for: element)
        let position = Self.firstIndex(in: chunks[chunk]) { $0 < element }
        guard position < chunks[chunk].count, chunks[chunk][position] == element else { return false }
        chunks[chunk].remove(at: position)
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
        count -= 1
        return true
    }

    /// Calls `body` with each element from the first that is not below `start` (from the
    /// smallest when `start` is `nil`), in increasing order, until `body` returns `false`.
    /// - Complexity: O(log *n*) to find the start, then O(1) per element.
    func walkForward(from start: ((Element) -> Bool)? = nil, _ body: (Element) -> Bool) {
        var chunk = 0, position = 0
        if let isBelowStart = start {
            // The first chunk whose last element is not below the start.
            chunk = Self.firstIndex(in: chunks) { isBelowStart($0[$0.count - 1]) }
            guard chunk < chunks.count else { return }
            position = Self.firstIndex(in: chunks[chunk]) { isBelowStart($0) }
        }
        while chunk < chunks.count {
            let elements = chunks[chunk]
            while position < elements.count {
                guard body(elements[position]) else { return }
                position += 1
            }
            chunk += 1
            position = 0
        }
    }

    /// Calls `body` with each element in decreasing order, from the largest, until `body`
    /// returns `false`.
    /// - Complexity: O(1) per element.
    func walkBackward(_ body: (Element) -> Bool) {
        for elements in chunks.reversed() {
            for element in elements.reversed() {
                guard body(element) else { return }
            }
        }
    }

    /// The chunk `element` belongs in: the first whose last element is not below it, or the last.
    private func chunkIndex(for element: Element) -> Int {
        min(chunks.count - 1, Self.firstIndex(in: chunks) { $0[$0.count - 1] < element })
    }

    /// The first index where `isBelow` is false, by binary search: `isBelow` must hold on a
    /// prefix and fail on the rest.
    private static func firstIndex<C: RandomAccessCollection>(in collection: C, where isBelow: (C.Element) -> Bool) -> Int
    where C.Index == Int {
        var low = collection.startIndex, high = collection.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if isBelow(collection[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

import Foundation
import Synchronization

/// Who is asking: the context that sends a request, and the author it writes history as.
public struct EditingState: Sendable, Hashable {
    /// Identifies the ``ModelContext``.
    public var id: UUID
    /// The author recorded on history transactions (``ModelContext/author``).
    public var author: String?

    /// Makes an editing state; by default a new id (``makeID()``) and no author.
    public init(id: UUID = EditingState.makeID(), author: String? = nil) {
        self.id = id
        self.author = author
    }

    /// A new id, unique across processes: a random UUID drawn once per process with a counter
    /// in its last eight bytes. `UUID()` reads the system's random source on every call, which
    /// would cost more than a whole fetch by id.
    public static func makeID() -> UUID {
        let count = counter.add(1, ordering: .relaxed).newValue
        var bytes = processBase.uuid
        withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: buffer.load(fromByteOffset: 8, as: UInt64.self) ^ count, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }

    private static let processBase = UUID()
    private static let counter = Atomic<UInt64>(0)
}

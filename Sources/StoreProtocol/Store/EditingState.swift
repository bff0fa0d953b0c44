import Foundation

/// Who is asking: the context that sends a request, and the author it writes history as.
public struct EditingState: Sendable, Hashable {
    /// Identifies the ``ModelContext``.
    public var id: UUID
    /// The author recorded on history transactions (``ModelContext/author``).
    public var author: String?

    public init(id: UUID = UUID(), author: String? = nil) {
        self.id = id
        self.author = author
    }
}

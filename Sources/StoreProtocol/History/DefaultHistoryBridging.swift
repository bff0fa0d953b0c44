/// A store with history types of its own that can also be read as ``DefaultHistoryTransaction``,
/// so that a ``ModelContainer`` merges it with its other stores under one
/// ``DefaultHistoryToken``.
///
/// Tokens in the descriptors are ``DefaultHistoryToken``s with a position for this store; the
/// same errors apply as in ``HistoryProviding``.
public protocol DefaultHistoryBridging: DataStore {
    /// The store's transactions a descriptor selects, as ``DefaultHistoryTransaction``s: what
    /// ``HistoryProviding/fetchHistory(_:)`` returns for a store of that type.
    /// - Throws: ``HistoryError`` for an expired or foreign token; ``DataStoreError`` when the store
    ///   cannot be read or the predicate throws.
    func fetchDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction]
    /// Deletes the store's transactions a descriptor selects, as
    /// ``HistoryProviding/deleteHistory(_:)`` does.
    /// - Throws: as ``fetchDefaultHistory(_:)``, or when the store cannot write.
    func deleteDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws
    /// The store's position as a ``DefaultHistoryToken`` (the token of its newest transaction),
    /// `nil` when it has none.
    /// - Throws: ``DataStoreError`` when the store cannot be read.
    func currentDefaultHistoryToken() throws -> DefaultHistoryToken?
}

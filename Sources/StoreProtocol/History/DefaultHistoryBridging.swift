/// A store with history types of its own that can also be read as ``DefaultHistoryTransaction``,
/// so that a ``ModelContainer`` merges it with its other stores under one
/// ``DefaultHistoryToken``.
///
/// Tokens in the descriptors are ``DefaultHistoryToken``s with a position for this store; the
/// same errors apply as in ``HistoryProviding``.
public protocol DefaultHistoryBridging: DataStore {
    func fetchDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction]
    func deleteDefaultHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws
    func currentDefaultHistoryToken() throws -> DefaultHistoryToken?
}

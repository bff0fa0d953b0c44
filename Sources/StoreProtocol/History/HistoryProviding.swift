/// A store that records history: one transaction per save that changed anything.
public protocol HistoryProviding<HistoryType>: AnyObject, Sendable {
    /// The store's transaction type: ``DefaultHistoryTransaction`` for the framework's stores that
    /// record updates and deletes.
    associatedtype HistoryType: HistoryTransaction

    /// The transactions a descriptor selects, oldest first unless it sorts.
    /// - Throws: ``HistoryError`` for an expired or foreign token.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]

    /// Deletes the transactions a descriptor selects. Tokens older than the newest deleted
    /// transaction are expired from then on; transaction numbers keep rising (deleting all
    /// history, or the newest transactions, does not start them again).
    /// - Throws: ``HistoryError`` for an expired or foreign token in the descriptor; what the
    ///   store throws writing. Nothing is deleted then.
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws

    /// The token of the newest transaction, `nil` when there is none: pass it to start reading
    /// history from now on.
    func currentHistoryToken() throws -> HistoryType.Token?
}

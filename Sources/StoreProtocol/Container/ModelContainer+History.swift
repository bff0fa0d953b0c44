import Foundation

extension ModelContainer {
    /// The stores that record history of type `T`.
    func historyProviders<T: HistoryTransaction>(of type: T.Type) -> [any HistoryProviding<T>] {
        stores.compactMap { $0 as? any HistoryProviding<T> }
    }

    /// History across every store that provides it, oldest first unless the descriptor sorts.
    ///
    /// For ``DefaultHistoryTransaction``, each returned transaction's token holds the position in
    /// every store (the `after` token's positions, advanced through the results), so passing
    /// `transactions.last?.token` back resumes all stores: none lost, none repeated.
    /// - Throws: ``HistoryError`` for an expired or foreign token, or when no store provides `T`.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        let providers = historyProviders(of: T.self)
        guard !providers.isEmpty else {
            throw HistoryError(.historyUnavailable, "No store of this container records history of type \(T.self).")
        }
        if providers.count == 1, T.self != DefaultHistoryTransaction.self { return try providers[0].fetchHistory(descriptor) }
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction>,
              let providers = providers as? [any HistoryProviding<DefaultHistoryTransaction>] else {
            // Several stores of a custom transaction type: merge by time, tokens untouched.
            var all = try providers.flatMap { try $0.fetchHistory(descriptor) }
            all.sort { $0.timestamp < $1.timestamp }
            return try descriptor.apply(to: all)
        }
        return try mergedHistory(descriptor, providers: providers) as? [T] ?? []
    }

    private func mergedHistory(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, providers: [any HistoryProviding<DefaultHistoryTransaction>]
    ) throws -> [DefaultHistoryTransaction] {
        let storeIdentifiers = Set(providers.map { ($0 as? any DataStore)?.identifier ?? "" })
        if let after = descriptor.after {
            let unknown = Set(after.positions.keys).subtracting(storeIdentifiers)
            guard unknown.isEmpty else {
                throw HistoryError(.foreignToken,
                    "The history token names store(s) \(unknown.sorted().joined(separator: ", ")) that this container "
                    + "does not hold (it holds \(storeIdentifiers.sorted().joined(separator: ", "))).")
            }
        }
        var merged: [DefaultHistoryTransaction] = []
        for provider in providers {
            let identifier = (provider as? any DataStore)?.identifier ?? ""
            var perStore = HistoryDescriptor<DefaultHistoryTransaction>(predicate: descriptor.predicate)
            if let position = descriptor.after?.positions[identifier] {
                perStore.after = DefaultHistoryToken(storeIdentifier: identifier, transactionNumber: position)
            }
            merged += try provider.fetchHistory(perStore)
        }
        merged.sort {
            ($0.timestamp, $0.storeIdentifier, $0.transactionIdentifier) < ($1.timestamp, $1.storeIdentifier, $1.transactionIdentifier)
        }
        // Cumulative tokens, in time order: each resumes every store after the transactions
        // before it. Then sort and limit as asked.
        var positions = descriptor.after?.positions ?? [:]
        for index in merged.indices {
            positions[merged[index].storeIdentifier] = merged[index].transactionIdentifier
            merged[index].token = DefaultHistoryToken(positions: positions)
        }
        var sortAndLimit = descriptor
        sortAndLimit.predicate = nil
        let result = try sortAndLimit.apply(to: merged)
        return result
    }

    /// Deletes the history a descriptor selects in every store that provides it.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let providers = historyProviders(of: T.self)
        guard !providers.isEmpty else {
            throw HistoryError(.historyUnavailable, "No store of this container records history of type \(T.self).")
        }
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction>,
              let providers = providers as? [any HistoryProviding<DefaultHistoryTransaction>] else {
            for provider in providers { try provider.deleteHistory(descriptor) }
            return
        }
        for provider in providers {
            let identifier = (provider as? any DataStore)?.identifier ?? ""
            var perStore = descriptor
            perStore.after = descriptor.after?.positions[identifier].map {
                DefaultHistoryToken(storeIdentifier: identifier, transactionNumber: $0)
            }
            try provider.deleteHistory(perStore)
        }
    }

    /// A token at the newest transaction of every store: read history from now on with it.
    public func currentHistoryToken() throws -> DefaultHistoryToken {
        var positions: [String: Int64] = [:]
        for provider in historyProviders(of: DefaultHistoryTransaction.self) {
            if let token = try provider.currentHistoryToken() { positions.merge(token.positions) { $1 } }
        }
        return DefaultHistoryToken(positions: positions)
    }
}

extension ModelContext {
    /// History across the container's stores; see ``ModelContainer/fetchHistory(_:)``.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        try container.fetchHistory(descriptor)
    }

    /// Deletes the history a descriptor selects; see ``ModelContainer/deleteHistory(_:)``.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        try container.deleteHistory(descriptor)
    }
}

import Foundation

extension ModelContainer {
    /// A store's history as ``DefaultHistoryTransaction``s, whether it provides them or bridges.
    struct DefaultHistorySource {
        let identifier: String
        let fetch: (HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction]
        let delete: (HistoryDescriptor<DefaultHistoryTransaction>) throws -> Void
        let current: () throws -> DefaultHistoryToken?
    }

    var defaultHistorySources: [DefaultHistorySource] {
        stores.compactMap { store in
            if let provider = store as? any HistoryProviding<DefaultHistoryTransaction> {
                return DefaultHistorySource(identifier: store.identifier, fetch: provider.fetchHistory,
                                            delete: provider.deleteHistory, current: provider.currentHistoryToken)
            }
            if let bridge = store as? any DefaultHistoryBridging {
                return DefaultHistorySource(identifier: store.identifier, fetch: bridge.fetchDefaultHistory,
                                            delete: bridge.deleteDefaultHistory, current: bridge.currentDefaultHistoryToken)
            }
            return nil
        }
    }

    /// Deletes, in each store, the history that every token in `tokens` has passed: up to the
    /// lowest position any of them holds for that store. Deletes nothing in a store some token
    /// has no position for, and nothing at all without tokens. For `HistoryConsumers`.
    /// - Throws: what the stores' `deleteHistory` throws.
    package func deleteHistory(readByAll tokens: [DefaultHistoryToken]) throws {
        guard !tokens.isEmpty else { return }
        for source in defaultHistorySources {
            let positions = tokens.map { $0.positions[source.identifier] ?? 0 }
            guard let bound = positions.min(), bound > 0 else { continue }
            let store = source.identifier
            try source.delete(HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.storeIdentifier == store && $0.transactionIdentifier <= bound }))
        }
    }

    /// History across every store that provides it, oldest first unless the descriptor sorts.
    ///
    /// For ``DefaultHistoryTransaction``, each returned transaction's token holds the position in
    /// every store (the `after` token's positions, advanced through the results), so passing
    /// `transactions.last?.token` back resumes all stores: none lost, none repeated. Stores with
    /// history types of their own take part through ``DefaultHistoryBridging``.
    ///
    /// A token the predicate compares with (`#Predicate { $0.token > token }`, as the talk's
    /// `findTransactions` writes) is checked as ``HistoryDescriptor/after`` is: history deleted
    /// past it throws rather than silently leave out what was deleted. That costs one more read
    /// of each store per such token, of at most one transaction.
    /// - Throws: ``HistoryError`` for an expired or foreign token, in ``HistoryDescriptor/after``
    ///   or in the predicate, or when no store provides `T`.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        if let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> {
            let sources = try requireSources()
            try checkPredicateTokens(descriptor, sources: sources)
            return try mergedHistory(descriptor, sources: sources) as? [T] ?? []
        }
        let providers = stores.compactMap { $0 as? any HistoryProviding<T> }
        guard !providers.isEmpty else { throw unavailable(T.self) }
        for token in descriptor.predicateTokens {
            for provider in providers { _ = try provider.fetchHistory(HistoryDescriptor<T>(after: token, fetchLimit: 1)) }
        }
        if providers.count == 1 { return try providers[0].fetchHistory(descriptor) }
        // Several stores of a custom transaction type: merge by time, tokens untouched.
        var all = try providers.flatMap { try $0.fetchHistory(HistoryDescriptor<T>(after: descriptor.after, predicate: descriptor.predicate)) }
        all.sort { $0.timestamp < $1.timestamp }
        var rest = descriptor
        rest.predicate = nil
        return try rest.apply(to: all)
    }

    private func unavailable(_ type: Any.Type) -> HistoryError {
        HistoryError(.historyUnavailable, "No store of this container records history of type \(type).")
    }

    private func requireSources() throws -> [DefaultHistorySource] {
        let sources = defaultHistorySources
        guard !sources.isEmpty else { throw unavailable(DefaultHistoryTransaction.self) }
        return sources
    }

    /// Reads each store once after each position a predicate's token holds for it, so that the
    /// store's own check of ``HistoryDescriptor/after`` throws for a token whose history it
    /// deleted (or that is ahead of it). Positions in stores this container does not hold are
    /// left to the predicate: tokens compare on the stores they share.
    private func checkPredicateTokens(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>,
                                      sources: [DefaultHistorySource]) throws {
        for token in descriptor.predicateTokens {
            for source in sources {
                guard let position = token.positions[source.identifier] else { continue }
                _ = try source.fetch(HistoryDescriptor(
                    after: DefaultHistoryToken(storeIdentifier: source.identifier, transactionNumber: position), fetchLimit: 1))
            }
        }
    }

    /// Splits a container token into one store's descriptor.
    private func perStore(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, _ identifier: String,
                          sources: [DefaultHistorySource]) throws -> HistoryDescriptor<DefaultHistoryTransaction> {
        if let after = descriptor.after {
            guard !after.positions.isEmpty else {
                throw HistoryError(.foreignToken,
                    "The history token holds no position in any store, so it cannot say where to resume. Use a token "
                    + "a transaction or currentHistoryToken() returned, or no token for all history.")
            }
            let unknown = Set(after.positions.keys).subtracting(sources.map(\.identifier))
            guard unknown.isEmpty else {
                throw HistoryError(.foreignToken,
                    "The history token names store(s) \(unknown.sorted().joined(separator: ", ")) that this container "
                    + "does not hold (it holds \(sources.map(\.identifier).sorted().joined(separator: ", "))).")
            }
        }
        var result = descriptor
        result.after = descriptor.after?.positions[identifier].map {
            DefaultHistoryToken(storeIdentifier: identifier, transactionNumber: $0)
        }
        return result
    }

    /// Each store's history, merged in time order, each transaction's token holding every store's
    /// position after it, then sorted and limited as the descriptor asks.
    ///
    /// The merge keeps each store's own order (a store's transactions are never reordered, even
    /// when its clock went back), so a token never passes over a transaction of its store that
    /// comes later in the results. Without a sort, the limit is the merge's, so each store is
    /// asked for at most `fetchLimit` transactions.
    private func mergedHistory(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, sources: [DefaultHistorySource]
    ) throws -> [DefaultHistoryTransaction] {
        let limit = descriptor.sortBy.isEmpty ? descriptor.fetchLimit : nil
        let histories = try sources.map { source in
            var query = try perStore(descriptor, source.identifier, sources: sources)
            query.sortBy = []
            query.fetchLimit = limit
            return try source.fetch(query)
        }
        var merged: [DefaultHistoryTransaction] = []
        merged.reserveCapacity(histories.reduce(0) { $0 + $1.count })
        var next = Array(repeating: 0, count: histories.count)
        var positions = descriptor.after?.positions ?? [:]
        while merged.count < (limit ?? .max) {
            // The store whose next transaction is earliest (by time, then store identifier).
            var earliest: Int?
            for store in histories.indices where next[store] < histories[store].count {
                guard let best = earliest else { earliest = store; continue }
                let candidate = histories[store][next[store]], current = histories[best][next[best]]
                if (candidate.timestamp, candidate.storeIdentifier) < (current.timestamp, current.storeIdentifier) {
                    earliest = store
                }
            }
            guard let store = earliest else { break }
            var transaction = histories[store][next[store]]
            next[store] += 1
            positions[transaction.storeIdentifier] = transaction.transactionIdentifier
            transaction.token = DefaultHistoryToken(positions: positions)
            merged.append(transaction)
        }
        guard limit == nil else { return merged }
        var sortAndLimit = descriptor
        sortAndLimit.predicate = nil
        return try sortAndLimit.apply(to: merged)
    }

    /// Deletes the history a descriptor selects in every store that provides it.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        if let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> {
            let sources = try requireSources()
            for source in sources { try source.delete(try perStore(descriptor, source.identifier, sources: sources)) }
            return
        }
        let providers = stores.compactMap { $0 as? any HistoryProviding<T> }
        guard !providers.isEmpty else { throw unavailable(T.self) }
        for provider in providers { try provider.deleteHistory(descriptor) }
    }

    /// A token at the newest transaction of every store: read history from now on with it. A
    /// store with no transaction yet is at position 0 (before its first), so the token always
    /// names every store with history, and a token naming none is never one a container made.
    public func currentHistoryToken() throws -> DefaultHistoryToken {
        var positions: [String: Int64] = [:]
        for source in defaultHistorySources {
            positions[source.identifier] = try source.current()?.positions[source.identifier] ?? 0
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

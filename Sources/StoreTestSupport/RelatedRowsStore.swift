import Foundation
import StoreProtocol

/// What a ``RelatedRowsStore`` does to the related rows (`DataStoreFetchResult.relatedSnapshots`)
/// its inner store sends along with a fetch: the reference (none sent: the context fetches every
/// related model by key), the inner store's rows as they are, rows the contract lets a store send
/// and the context must ignore, and flaws the context or the conformance suite must catch.
public enum RelatedRowsMode: String, Sendable, CaseIterable {
    /// Sends the inner store's related rows as they are.
    case passesThrough
    /// Sends none and asks for none: the context's slow path, the reference for the fast one.
    case sendsNone
    /// Sends only every other related row: the context fetches the rest by key.
    case sendsHalf
    /// Adds rows the context must ignore: a row of every model of every entity, of an unknown
    /// entity, and an unknown key of each entity (the fetched models' own rows among them).
    case addsUnaskedRows
    /// Flaw: keys every related row by the next one's identifier (the rows rotated).
    case misKeysRows
    /// Flaw: sends related rows with every text attribute changed, as a stale cache would.
    case sendsStaleValues
}

/// Opens `inner`'s store behind a ``RelatedRowsMode``.
public struct RelatedRowsStoreConfiguration<Inner: DataStoreConfiguration>: DataStoreConfiguration
where Inner.Store.Snapshot == DefaultSnapshot {
    public typealias Store = RelatedRowsStore<Inner>
    public var inner: Inner
    public let mode: RelatedRowsMode
    /// Rows sent along with every fetch besides what the mode sends, under their own
    /// identifiers: rows of another store's models, which the context must not take.
    public var extraRelatedRows: [DefaultSnapshot] = []

    public init(_ inner: Inner, mode: RelatedRowsMode) {
        self.inner = inner
        self.mode = mode
    }

    public var name: String { inner.name }
    public var schema: Schema? {
        get { inner.schema }
        set { inner.schema = newValue }
    }
    public var allowsSave: Bool {
        get { inner.allowsSave }
        set { inner.allowsSave = newValue }
    }
}

/// A store that forwards everything to another one, and changes the related rows of its fetches
/// as its ``RelatedRowsMode`` says.
public final class RelatedRowsStore<Inner: DataStoreConfiguration>: DataStore
where Inner.Store.Snapshot == DefaultSnapshot {
    public typealias Snapshot = DefaultSnapshot

    public let configuration: RelatedRowsStoreConfiguration<Inner>
    private let inner: Inner.Store
    private let fetchCounter = Locked(0)
    /// How many fetches the store answered: one per batch a context loads by key.
    public var fetches: Int { fetchCounter.withLock { $0 } }

    public init(_ configuration: RelatedRowsStoreConfiguration<Inner>) throws {
        self.configuration = configuration
        inner = try Inner.Store(configuration.inner)
    }

    public var identifier: String { inner.identifier }
    public var schema: Schema { inner.schema }

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        fetchCounter.withLock { $0 += 1 }
        var request = request
        if configuration.mode == .sendsNone { request.includesRelatedSnapshots = false }
        var result = try inner.fetch(request)
        let related = result.relatedSnapshots.sorted { "\($0.key)" < "\($1.key)" }
        switch configuration.mode {
        case .passesThrough, .sendsNone:
            break
        case .sendsHalf:
            result.relatedSnapshots = Dictionary(uniqueKeysWithValues: related.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        case .addsUnaskedRows:
            for entity in schema.entities {
                func all<M: PersistentModel>(_ type: M.Type) throws -> [DefaultSnapshot] {
                    try inner.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<M>())).fetchedSnapshots
                }
                for row in try all(entity.modelType) { result.relatedSnapshots[row.persistentIdentifier] = row }
                let unknown = PersistentIdentifier(entityName: entity.name, primaryKey: .uuid(UUID()))
                result.relatedSnapshots[unknown] = DefaultSnapshot(persistentIdentifier: unknown, values: ["id": unknown.primaryKey])
            }
            let stranger = PersistentIdentifier(entityName: "NoSuchEntity", primaryKey: .uuid(UUID()))
            result.relatedSnapshots[stranger] = DefaultSnapshot(persistentIdentifier: stranger, values: ["id": stranger.primaryKey])
        case .misKeysRows:
            guard related.count > 1 else { break }
            result.relatedSnapshots = Dictionary(uniqueKeysWithValues: related.indices.map {
                (related[($0 + 1) % related.count].key, related[$0].value)
            })
        case .sendsStaleValues:
            result.relatedSnapshots = result.relatedSnapshots.mapValues { row in
                DefaultSnapshot(persistentIdentifier: row.persistentIdentifier, values: row.values.mapValues { value in
                    if case .string(let text) = value { return .string(text + " (stale)") }
                    return value
                })
            }
        }
        for row in configuration.extraRelatedRows { result.relatedSnapshots[row.persistentIdentifier] = row }
        return result
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int { try inner.fetchCount(request) }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try inner.fetchIdentifiers(request)
    }

    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try inner.save(request)
    }

    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws { try inner.delete(request) }

    public func erase() throws { try inner.erase() }
}

extension ModelContext {
    /// The related rows a store sent along with a fetch (``DataStoreFetchResult/relatedSnapshots``),
    /// checked to be under their own identifiers: what loading relationships takes instead of
    /// fetching by key, for the entities that store keeps. A row of an entity another store of
    /// the container keeps is never taken (that store is asked), nor one no loaded model names.
    struct PreloadedRows {
        /// The index of the answering store in the container's stores; `nil` with no rows.
        private let storeIndex: Int?
        private let byIdentifier: [PersistentIdentifier: DefaultSnapshot]

        /// No rows: everything is fetched by key.
        init() {
            storeIndex = nil
            byIdentifier = [:]
        }

        /// The rows store `storeIndex` sent, by their own identifiers.
        init(storeIndex: Int, rows: [PersistentIdentifier: DefaultSnapshot]) {
            self.storeIndex = rows.isEmpty ? nil : storeIndex
            byIdentifier = rows
        }

        /// Whether rows of this entity may be taken from here: the store that sent them keeps it.
        func holdsRows(ofEntityNamed name: String, in container: ModelContainer) -> Bool {
            guard let storeIndex else { return false }
            return (try? container.storeIndex(forEntityNamed: name)) == storeIndex
        }

        /// The rows held for `identifiers`, in their order, and the identifiers without one.
        func rows(for identifiers: [PersistentIdentifier]) -> (rows: [DefaultSnapshot], missing: [PersistentIdentifier]) {
            var rows: [DefaultSnapshot] = []
            rows.reserveCapacity(identifiers.count)
            var missing: [PersistentIdentifier] = []
            for identifier in identifiers {
                if let row = byIdentifier[identifier] { rows.append(row) } else { missing.append(identifier) }
            }
            return (rows, missing)
        }
    }
}

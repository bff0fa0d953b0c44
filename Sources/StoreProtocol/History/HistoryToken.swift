/// A bookmark in history: pass a transaction's token back in ``HistoryDescriptor/after`` to get
/// exactly the transactions saved after it. Persist it (it is Codable) between runs.
public protocol HistoryToken: Codable, Hashable, Comparable, Sendable {}

/// The token of the framework's history: one position (a transaction number) per store, so one
/// token can stand for every store of a container.
///
/// Tokens compare on the stores they share: `a < b` when no shared store is ahead in `a` and one
/// is behind. Tokens with no store in common are unordered (neither is less). A container checks
/// a token in ``HistoryDescriptor/after`` or compared in a predicate
/// (`#Predicate { $0.token > token }`) alike: an expired one throws
/// ``HistoryError/Code/historyTokenExpired``. `after` costs less.
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// Store identifier -> number of the last transaction seen in that store.
    public var positions: [String: Int64]

    /// Makes a token from positions, as given: store identifier -> number of the last transaction
    /// seen. Unlike decoding, it validates nothing.
    public init(positions: [String: Int64]) { self.positions = positions }

    private enum CodingKeys: String, CodingKey { case positions }

    /// Decodes a token, refusing one that names no store or holds a negative position: such a
    /// token was not made by a store, and read as given it would return all history or claim
    /// to be expired.
    /// - Throws: `DecodingError.dataCorrupted` saying what is wrong.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let positions = try container.decode([String: Int64].self, forKey: .positions)
        guard !positions.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .positions, in: container,
                debugDescription: "A history token holds a position in at least one store; this one holds none.")
        }
        if let (store, position) = positions.first(where: { $0.value < 0 }) {
            throw DecodingError.dataCorruptedError(forKey: .positions, in: container,
                debugDescription: "A history token's positions are transaction numbers, 0 or more; store \(store) has \(position).")
        }
        self.positions = positions
    }

    /// The token of transaction `transactionNumber` of one store.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        positions = [storeIdentifier: transactionNumber]
    }

    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        var someBehind = false
        for (store, left) in lhs.positions {
            guard let right = rhs.positions[store] else { continue }
            if left > right { return false }
            if left < right { someBehind = true }
        }
        return someBehind
    }

    public var description: String {
        positions.sorted { $0.key < $1.key }.map { "\($0.key.prefix(8))…:\($0.value)" }.joined(separator: ",")
    }
}

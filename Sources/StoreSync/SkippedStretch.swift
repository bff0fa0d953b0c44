/// A run of source transactions a round passes without applying (replicator saves, its own
/// pushes, origins already applied), read past in memory and saved as a position only when it is
/// long.
///
/// Why not save it every time: a position save is itself a replicator transaction in the store it
/// is saved to, which the other direction must then pass, with a save of its own. Saving every
/// skipped batch made idle rounds with a small batch size write bookkeeping on both sides forever.
/// Saving only a stretch of at least ``worthASave`` transactions makes each save stand for many
/// passed transactions while adding one, so the chain dies out; a shorter stretch is read again,
/// cheaply, by the next round.
struct SkippedStretch {
    /// The shortest stretch a position save is made for.
    static let worthASave = 64

    /// The last transaction passed (0 before any).
    private(set) var through: Int64 = 0
    private(set) var count = 0

    mutating func pass(_ transaction: Int64) {
        through = transaction
        count += 1
    }

    var isWorthASave: Bool { count >= Self.worthASave }
}

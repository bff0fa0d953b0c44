import Foundation

/// A hybrid logical clock reading (Kulkarni et al., 2014): wall-clock milliseconds, a counter
/// for events within one millisecond or behind a clock read from another replica, and the
/// replica that made it, which breaks ties. Ordered by all three, in that order.
public struct HybridLogicalTimestamp: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970, at least the wall clock of the replica when it stamped.
    public var milliseconds: Int64
    /// Orders readings with equal ``milliseconds``.
    public var counter: Int64
    /// The replica that stamped: the tie-break between equal readings of two replicas.
    public var replica: String

    /// A reading from its parts, as given (a replicator makes them as it dates changes).
    public init(milliseconds: Int64, counter: Int64, replica: String) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.replica = replica
    }

    /// The reading at `date`'s millisecond, counter 0, by `replica`: how a save is dated by the
    /// timestamp of its history transaction.
    init(at date: Date, replica: String) {
        self.init(milliseconds: Self.milliseconds(of: date), counter: 0, replica: replica)
    }

    /// `date` in whole milliseconds since 1970, rounded down: the unit of ``milliseconds``.
    static func milliseconds(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.milliseconds, lhs.counter, lhs.replica) < (rhs.milliseconds, rhs.counter, rhs.replica)
    }

    /// The next reading after this one, by `replica`: the counter one higher, or, at the
    /// counter's maximum, the next millisecond. Saturating: the greatest reading stays where it
    /// is, never an arithmetic trap, whatever a damaged record holds (such a reading is refused
    /// before it is taken in; see `HybridLogicalClock`).
    func next(by replica: String) -> HybridLogicalTimestamp {
        if counter < .max { return HybridLogicalTimestamp(milliseconds: milliseconds, counter: counter + 1, replica: replica) }
        if milliseconds < .max { return HybridLogicalTimestamp(milliseconds: milliseconds + 1, counter: 0, replica: replica) }
        return HybridLogicalTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
    }

    public var description: String { "\(milliseconds).\(counter)@\(replica)" }
}

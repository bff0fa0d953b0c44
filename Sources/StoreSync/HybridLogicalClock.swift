import DataStores
import Foundation

/// A replica's hybrid logical clock (Kulkarni et al., 2014): each reading is later than every
/// reading it made or received before, and close to the wall clock.
///
/// Readings come from other devices and from stored rows, so none is trusted: a reading more than
/// ``maximumSkew`` ahead of this device's wall clock (or a negative one) is refused with a typed
/// error instead of being taken in, and a counter at its maximum moves to the next millisecond.
/// No reading, however damaged, makes the clock's arithmetic trap.
struct HybridLogicalClock: Sendable {
    /// How far ahead of this device's wall clock a reading may be: one day. A device whose clock
    /// runs further ahead, or a damaged record, would otherwise drag every replica's clock (and
    /// so every later edit) into its future.
    static let maximumSkew: Int64 = 86_400_000

    /// The replica whose readings these are.
    let replica: String
    /// The latest reading made or received (its replica is irrelevant here).
    private(set) var milliseconds: Int64
    private(set) var counter: Int64
    /// The wall clock, in milliseconds since 1970.
    let wallClock: @Sendable () -> Int64

    /// A clock resuming from its saved high-water mark.
    ///
    /// - Throws: ``SyncError/Code/corruptSyncState`` when the saved mark is negative or more than
    ///   ``maximumSkew`` ahead of the wall clock (a damaged ``SyncReplicaState``).
    init(replica: String, milliseconds: Int64, counter: Int64, wallClock: @escaping @Sendable () -> Int64) throws {
        let mark = HybridLogicalTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
        if let problem = Self.problem(with: mark, wallClock: wallClock()) {
            throw SyncError(.corruptSyncState, "The SyncReplicaState of this replica holds the clock reading \(mark), which \(problem). "
                + "The row is damaged (or this device's clock was set back by more than a day): correct the device's clock, or "
                + "remove the store's SyncReplicaState row to start the replica afresh. Nothing was read or written.")
        }
        self.replica = replica
        self.milliseconds = milliseconds
        self.counter = counter
        self.wallClock = wallClock
    }

    /// A new reading, later than every earlier one: the wall clock when it is ahead, otherwise the
    /// last reading's milliseconds with the counter one higher (the next millisecond when the
    /// counter is at its maximum).
    mutating func tick() -> HybridLogicalTimestamp {
        tick(at: wallClock())
    }

    /// A new reading as ``tick()`` makes it, with `now` standing for the wall clock: the time an
    /// app saved a change, so that a change is dated when it was made (still later than every
    /// earlier reading).
    mutating func tick(at now: Int64) -> HybridLogicalTimestamp {
        let reading = now > milliseconds
            ? HybridLogicalTimestamp(milliseconds: now, counter: 0, replica: replica)
            : HybridLogicalTimestamp(milliseconds: milliseconds, counter: counter, replica: replica).next(by: replica)
        milliseconds = reading.milliseconds
        counter = reading.counter
        return reading
    }

    /// Takes in every reading of a model's clocks, so that the next tick is later than each.
    ///
    /// - Throws: ``SyncError/Code/clockOutOfRange`` naming `model` and the reading when one is
    ///   refused (see ``check(_:of:wallClock:)``); the clock is then unchanged.
    mutating func receive(_ clocks: ModelClocks, of model: PersistentIdentifier) throws {
        try Self.check(clocks, of: model, wallClock: wallClock)
        for reading in Self.readings(of: clocks) where (reading.milliseconds, reading.counter) > (milliseconds, counter) {
            milliseconds = reading.milliseconds
            counter = reading.counter
        }
    }

    /// Refuses a model's clocks when a reading is negative or more than ``maximumSkew`` ahead of
    /// the wall clock: applied, it would move this replica's clock (and the values it dates) into
    /// a future no honest device reaches.
    ///
    /// - Throws: ``SyncError/Code/clockOutOfRange`` naming `model` and the reading.
    static func check(_ clocks: ModelClocks, of model: PersistentIdentifier, wallClock: () -> Int64) throws {
        let now = wallClock()
        for reading in readings(of: clocks) {
            guard let problem = problem(with: reading, wallClock: now) else { continue }
            throw SyncError(.clockOutOfRange, "The clocks of \(model) hold the reading \(reading), which \(problem); the "
                + "replica \(reading.replica) has a wrong clock or a damaged clock record. Nothing of the transaction that "
                + "carries it was applied: correct that replica's clock or its record of \(model).")
        }
    }

    /// Why a reading cannot be taken in against the wall clock `now`, or `nil` when it can.
    private static func problem(with reading: HybridLogicalTimestamp, wallClock now: Int64) -> String? {
        if reading.milliseconds < 0 || reading.counter < 0 { return "is negative" }
        let limit = now.addingReportingOverflow(maximumSkew)
        if !limit.overflow && reading.milliseconds > limit.partialValue {
            return "is more than a day ahead of this device's wall clock (\(now) ms)"
        }
        return nil
    }

    /// Every reading a model's clocks hold.
    private static func readings(of clocks: ModelClocks) -> [HybridLogicalTimestamp] {
        var readings = [clocks.incarnation, clocks.deleted].compactMap { $0 }
        readings += clocks.values.values.map(\.clock)
        for members in clocks.members.values { readings += members.values.map(\.clock) }
        return readings
    }
}

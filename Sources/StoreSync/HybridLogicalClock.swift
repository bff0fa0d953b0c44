import Foundation

/// A replica's hybrid logical clock (Kulkarni et al., 2014): each reading is later than every
/// reading it made or received before, and close to the wall clock.
struct HybridLogicalClock: Sendable {
    /// The replica whose readings these are.
    let replica: String
    /// The latest reading made or received (its replica is irrelevant here).
    private(set) var milliseconds: Int64
    private(set) var counter: Int64
    /// The wall clock, in milliseconds since 1970.
    let wallClock: @Sendable () -> Int64

    init(replica: String, milliseconds: Int64, counter: Int64, wallClock: @escaping @Sendable () -> Int64) {
        self.replica = replica
        self.milliseconds = milliseconds
        self.counter = counter
        self.wallClock = wallClock
    }

    /// A new reading, later than every earlier one: the wall clock when it is ahead, otherwise the
    /// last reading's milliseconds with the counter one higher.
    mutating func tick() -> HybridLogicalTimestamp {
        let now = wallClock()
        if now > milliseconds {
            milliseconds = now
            counter = 0
        } else {
            counter += 1
        }
        return HybridLogicalTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
    }

    /// Takes in a reading from another replica, so that the next tick is later than it.
    mutating func receive(_ reading: HybridLogicalTimestamp) {
        if (reading.milliseconds, reading.counter) > (milliseconds, counter) {
            milliseconds = reading.milliseconds
            counter = reading.counter
        }
    }

    /// Takes in every reading of a model's clocks.
    mutating func receive(_ clocks: ModelClocks) {
        if let incarnation = clocks.incarnation { receive(incarnation) }
        if let deleted = clocks.deleted { receive(deleted) }
        for value in clocks.values.values { receive(value.clock) }
        for members in clocks.members.values { for member in members.values { receive(member.clock) } }
    }
}

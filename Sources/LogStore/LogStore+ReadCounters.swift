import StoreProtocol

// The read counters, for tests that check a fetch reads only what is in range. Compiled into
// debug builds only (the tests' build): a release read takes no lock per segment and record.

#if DEBUG
extension LogStore {
    /// How much a store has read (package: this package's tests read it; it is no API).
    package struct Statistics: Sendable, Equatable {
        package var segmentsRead = 0
        package var recordsDecoded = 0
        /// Bytes of segments read for their records (fetches, history, a save's identifier check);
        /// not those read to catch up with another instance's appends.
        package var bytesRead = 0
    }

    /// What this instance has read since it opened or since `resetStatistics()`.
    package var statistics: Statistics { counters.withLock { $0 } }
    package func resetStatistics() { counters.withLock { $0 = Statistics() } }

    /// Adds a read to the counters.
    func countRead(segments: Int = 0, records: Int = 0, bytes: Int = 0) {
        counters.withLock {
            $0.segmentsRead += segments
            $0.recordsDecoded += records
            $0.bytesRead += bytes
        }
    }
}
#else
extension LogStore {
    /// Nothing: release builds count no reads.
    @inline(__always)
    func countRead(segments: Int = 0, records: Int = 0, bytes: Int = 0) {}
}
#endif

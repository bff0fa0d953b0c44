import Foundation
@testable import LogStore
import StoreProtocol
import Testing

/// Issue 11: a record longer than a reader accepts (``Frame/maximumPayload``, 1 GiB) was written
/// and acknowledged, then read as damage and cut off as a torn write by the next writable open.
/// A save that large is refused instead. The limit is lowered here: a 1 GiB save is too much
/// memory for a test.
@Suite struct RecordSizeTests {
    func payload(rows: Int) -> LogPayload {
        LogPayload(transactionNumber: 1, author: nil, timestamp: Date(timeIntervalSince1970: 0), bundleIdentifier: "b",
                   processIdentifier: "p", rows: (0..<rows).map { LogPayload.Row(entity: "Reading", values: ["id": .int(Int64($0))]) })
    }

    @Test func aRecordLongerThanReadersAcceptIsRefused() throws {
        let small = try Frame.encode(payload(rows: 1), earliest: 0, latest: 0, limit: 1_000)
        #expect(small.count > Frame.headerSize, "control: a small record encodes")
        #expect {
            _ = try Frame.encode(payload(rows: 100), earliest: 0, latest: 0, limit: 1_000)
        } throws: { error in
            (error as? DataStoreError)?.code == .unsupportedFeature && "\(error)".contains("smaller batches")
        }
    }
}

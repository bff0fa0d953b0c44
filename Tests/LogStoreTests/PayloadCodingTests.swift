import Foundation
@testable import LogStore
import StoreBuildingBlocks
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 30: a log record is written straight to bytes (`LogPayload.json()`) and read straight
/// from them (`LogPayload(json:)`), without a `SnapshotValue` of the whole record. The format
/// must not change: the bytes are those of the general path (`SnapshotJSON.encode` of
/// `snapshotValue`), which every log written so far holds, and the reader accepts, refuses and
/// reports exactly what the general path (`LogPayload(SnapshotJSON.parse(_:))`) does.
@Suite struct PayloadCodingTests {
    /// A payload of `rows` rows of random values of every kind.
    static func payload(rows: Int, _ values: inout RandomSnapshotValues<SystemRandomNumberGenerator>) -> LogPayload {
        LogPayload(
            transactionNumber: values.integer() & Int64.max, author: Bool.random() ? values.string() : nil,
            timestamp: Date(timeIntervalSinceReferenceDate: Bool.random() ? values.double() : Double.random(in: 0...1e9)),
            bundleIdentifier: values.string(), processIdentifier: values.string(),
            rows: (0..<rows).map { _ in
                var row = values.object()
                row["id"] = values.value(depth: 0)
                return LogPayload.Row(entity: values.string(), values: row)
            })
    }

    /// The general path's reading of `bytes`: the payload, or the error's class and text.
    static func general(_ bytes: [UInt8]) -> Result<LogPayload, Failure> {
        do { return .success(try LogPayload(SnapshotJSON.parse(bytes))) } catch { return .failure(Failure(error)) }
    }

    /// The direct reader's reading of `bytes`.
    static func direct(_ bytes: [UInt8]) -> Result<LogPayload, Failure> {
        do { return .success(try bytes.withUnsafeBytes { try LogPayload(json: $0) }) } catch { return .failure(Failure(error)) }
    }

    /// An error as its type and text: the direct reader must give the same of both.
    struct Failure: Error, Equatable {
        let type: String, text: String
        init(_ error: any Error) { type = "\(Swift.type(of: error))"; text = "\(error)" }
    }

    static func same(_ a: LogPayload, _ b: LogPayload) -> Bool {
        a.transactionNumber == b.transactionNumber && a.author.map(Array.init) == b.author.map(Array.init)
            && a.timestamp.timeIntervalSinceReferenceDate.bitPattern == b.timestamp.timeIntervalSinceReferenceDate.bitPattern
            && Array(a.bundleIdentifier.unicodeScalars) == Array(b.bundleIdentifier.unicodeScalars)
            && Array(a.processIdentifier.unicodeScalars) == Array(b.processIdentifier.unicodeScalars)
            && a.rows.count == b.rows.count
            && zip(a.rows, b.rows).allSatisfy { Array($0.entity.unicodeScalars) == Array($1.entity.unicodeScalars) && sameBits(.object($0.values), .object($1.values)) }
    }

    /// Whether both readings of `bytes` agree: the same payload, or the same error.
    static func agree(_ bytes: [UInt8]) -> Bool {
        switch (general(bytes), direct(bytes)) {
        case (.success(let a), .success(let b)): return same(a, b)
        case (.failure(let a), .failure(let b)): return a == b
        default: return false
        }
    }

    @Test func theWriterWritesTheBytesOfTheGeneralPath() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        for round in 0..<300 {
            let payload = Self.payload(rows: round % 7, &values)
            let bytes = try payload.json()
            let general = try SnapshotJSON.encode(payload.snapshotValue)
            #expect(bytes == Array(general), "\(String(decoding: general, as: UTF8.self))")
            guard case .success(let back) = Self.direct(bytes) else { Issue.record("does not read back"); continue }
            #expect(Self.same(back, payload))
        }
    }

    /// Rows of one entity share their keys, so the writer sorts and encodes them once per record
    /// (`SnapshotJSON.KeyOrder`): rows with the same keys, then more, fewer, other and `$` keys,
    /// and a value too deep in a row of the same keys, write what the general path writes.
    @Test func rowsOfSharedAndOtherKeysWriteTheBytesOfTheGeneralPath() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        var deep = SnapshotValue.int(1)
        for _ in 0..<SnapshotJSON.maximumDepth { deep = .array([deep]) }
        for round in 0..<100 {
            let template = values.object(depth: 1).merging(["id": .int(1), "name": .string("n")]) { $1 }
            var rows: [[String: SnapshotValue]] = (0..<3).map { _ in template.mapValues { _ in values.value(depth: 1) } }
            rows.append(template.merging(["zz more": .int(2)]) { $1 })
            rows.append(template.filter { $0.key != "name" })
            rows.append(template.filter { $0.key != "name" }.merging(["other": .bool(true)]) { $1 })
            rows.append(template.merging(["$tag": .int(3)]) { $1 })
            rows.append(template)
            rows.shuffle()
            if round % 10 == 0 { rows.append(template.merging(["name": deep]) { $1 }) }
            let payload = LogPayload(transactionNumber: 1, author: nil, timestamp: Date(timeIntervalSince1970: 0), bundleIdentifier: "b",
                                     processIdentifier: "p", rows: rows.map { LogPayload.Row(entity: "E", values: $0) })
            let general = Result { Array(try SnapshotJSON.encode(payload.snapshotValue)) }.mapError(Failure.init)
            let direct = Result { try payload.json() }.mapError(Failure.init)
            #expect(general == direct)
            if case .failure(let refusal) = direct { #expect(refusal.text.contains(".rows[\(rows.count - 1)].values.name")) }
        }
    }

    /// Control for the test above: a writer one byte off is caught (a key out of order).
    @Test func aWriterOneByteOffDiffers() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        let payload = Self.payload(rows: 2, &values)
        var bytes = try payload.json()
        let comma = bytes.firstIndex(of: UInt8(ascii: ","))!
        bytes.insert(UInt8(ascii: " "), at: comma)
        #expect(bytes != Array(try SnapshotJSON.encode(payload.snapshotValue)))
    }

    /// Around the nesting limit, level by level: the same bytes where the general path writes,
    /// the same refusal (message included) where it refuses.
    @Test func nestingIsRefusedWhereTheGeneralPathRefusesIt() throws {
        var refusals = 0
        for levels in (SnapshotJSON.maximumDepth - 8)...(SnapshotJSON.maximumDepth) {
            var deep = SnapshotValue.int(1)
            for _ in 0..<levels { deep = .array([deep]) }
            let payload = LogPayload(transactionNumber: 1, author: nil, timestamp: Date(timeIntervalSince1970: 0), bundleIdentifier: "b",
                                     processIdentifier: "p", rows: [LogPayload.Row(entity: "E", values: ["id": .int(1), "deep": deep])])
            let general = Result { Array(try SnapshotJSON.encode(payload.snapshotValue)) }.mapError(Failure.init)
            let direct = Result { try payload.json() }.mapError(Failure.init)
            switch (general, direct) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(levels) levels")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(levels) levels")
                #expect(b.text.contains(".rows[0].values.deep"))
                refusals += 1
            default: Issue.record("\(levels) levels: the general path gives \(general), the direct one \(direct)")
            }
        }
        #expect(refusals > 0 && refusals < 9, "control: the levels tried straddle the limit (\(refusals) refused)")
    }

    /// The reader against the general path on records one byte away from valid ones (every
    /// truncation, random byte changes, insertions and deletions): the same payload or the same
    /// error, type and text (byte offset included). A reader one character off would differ.
    @Test func theReaderAgreesWithTheGeneralPathOnDamagedRecords() throws {
        var values = RandomSnapshotValues(SystemRandomNumberGenerator())
        var checked = 0, refused = 0
        for round in 0..<40 {
            let valid = try Self.payload(rows: round % 4, &values).json()
            #expect(Self.agree(valid))
            for length in stride(from: 0, to: valid.count, by: max(1, valid.count / 60)) {
                #expect(Self.agree(Array(valid[..<length])), "cut at \(length)")
                checked += 1
            }
            for _ in 0..<150 {
                let damaged = JSONDamage.oneByteChange(of: valid)
                if case .failure = Self.general(damaged) { refused += 1 }
                #expect(Self.agree(damaged), "\(String(decoding: damaged, as: UTF8.self))")
                checked += 1
            }
        }
        #expect(refused > checked / 4, "control: most damage is refused (\(refused) of \(checked))")
    }

    /// Records of shapes this library never writes, and what both readers make of them.
    @Test(arguments: [
        // Framing with `$` keys: read the general way.
        #"{"$object":{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]}}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[{"$object":{"entity":"E","values":{"id":1}}}]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[],"$date":3}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[],"\u0024x":3}"#,
        // Wrong types, missing fields, duplicates (the later one counts), unknown fields (ignored).
        #"{"transactionNumber":"1","timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":1,"timestamp":0,"bundleIdentifier":"b","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":{}}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[5]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[{"entity":"E"}]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[{"entity":"E","values":[]}]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","author":5,"rows":[]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","author":null,"rows":[]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[],"rows":5}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":5,"rows":[]}"#,
        #"{"transactionNumber":1,"transactionNumber":2,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[{"entity":"E","entity":"F","values":{"id":1},"more":[1]}]}"#,
        #" { "transactionNumber" : 1 , "timestamp" : { "$date" : 0 } , "bundleIdentifier" : "b" , "processIdentifier" : "p" , "rows" : [ { "entity" : "E" , "values" : { "id" : 1 } } ] } "#,
        // Syntax: bad escapes, trailing garbage, truncation, control characters, bad numbers.
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"\q","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"\u12","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]} x"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]"#,
        #"{"transactionNumber":1-2,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":+1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":0001,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":9223372036854775808,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[]}"#,
        #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[],}"#,
        #"{"transactionNumber":1 "timestamp":{"$date":0}}"#, "[]", "5", "", "{", #"{"rows""#, #"{"rows":[{"#, "{}",
    ])
    func oddRecordsReadAsTheGeneralPathReadsThem(_ text: String) {
        #expect(Self.agree(Array(text.utf8)))
    }

    /// Records nested as deep as a reader allows, and one level more.
    @Test func nestingLimitsAreTheGeneralPaths() throws {
        for depth in [SnapshotJSON.maximumDepth + 58, SnapshotJSON.maximumDepth + 59, SnapshotJSON.maximumDepth + 60, SnapshotJSON.maximumDepth + 64] {
            let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let text = #"{"transactionNumber":1,"timestamp":{"$date":0},"bundleIdentifier":"b","processIdentifier":"p","rows":[{"entity":"E","values":{"d":"#
                + deep + "}}]}"
            #expect(Self.agree(Array(text.utf8)), "\(depth)")
        }
    }
}

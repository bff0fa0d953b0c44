import Foundation
import JSONStore
import StoreFiles
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 28, defects 11–14 and 16: files made by hand (forged counters, duplicate rows, a FIFO,
/// a damaged last journal line, a torn first line after a compaction). Each damaged file is a
/// typed error that changes nothing; each torn append is cut back.
@Suite struct DamagedStoreFileTests {
    /// A store of three saves `a`, `b`, `c` compacted into its base, and its paths.
    func compactedStore() throws -> (directory: URL, url: URL) {
        let directory = try temporaryDirectory()
        let url = directory.appending(path: "store.json")
        let container = try openContainer(url)
        try save(["a", "b", "c"], to: container)
        try (container.stores[0] as? JSONStore)?.compact()
        return (directory, url)
    }

    /// `base` with `change` made to its text and its checksum made to hold again, as a forger does.
    func forged(_ base: Data, _ change: (String) -> String) -> Data {
        let trailer = 24   // ,"checksum":"xxxxxxxx"}\n
        let text = change(String(decoding: base.dropLast(trailer), as: UTF8.self))
        var data = Data(text.utf8)
        data.append(Data(",\"checksum\":\"\(String(format: "%08x", CRC32.checksum(data)))\"}\n".utf8))
        return data
    }

    /// Opening (writable and read-only) fails with `code` and a message holding `words`; the
    /// files stay as they were.
    func expectRefused(_ url: URL, _ code: DataStoreError.Code, _ words: String, _ what: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = url.deletingLastPathComponent()
        let before = try directoryContents(directory)
        for allowsSave in [true, false] {
            do {
                _ = try openContainer(url, allowsSave: allowsSave)
                Issue.record("\(what), allowsSave \(allowsSave): the store opened", sourceLocation: sourceLocation)
            } catch let error as DataStoreError {
                #expect(error.code == code && error.message.contains(words), "\(what): \(error)", sourceLocation: sourceLocation)
            }
            #expect(try directoryContents(directory) == before, "\(what): the files are untouched", sourceLocation: sourceLocation)
        }
    }

    // MARK: Defect 11: counters

    /// A forged `journalSequence` of `Int64.max` used to open, and the next save trapped on
    /// `journalSequence + 1`; every counter of the base file is checked now.
    @Test(arguments: [
        ("\"journalSequence\":3,", "\"journalSequence\":9223372036854775807,", "journalSequence"),
        ("\"journalSequence\":3,", "\"journalSequence\":-2,", "journalSequence"),
        ("\"lastTransaction\":3,", "\"lastTransaction\":9223372036854775807,", "lastTransaction"),
        ("\"historyExpiredThrough\":0,", "\"historyExpiredThrough\":-1,", "historyExpiredThrough"),
        ("\"historyExpiredThrough\":0,", "\"historyExpiredThrough\":9,", "deleted"),
        ("\"transactionNumber\":3}", "\"transactionNumber\":9223372036854775807}", "history transaction"),
        ("\"transactionNumber\":2}", "\"transactionNumber\":1}", "history transaction"),
    ])
    func anImpossibleCounterInTheBaseFileIsCorruption(_ field: String, _ forgery: String, _ named: String) throws {
        let (_, url) = try compactedStore()
        let base = try Data(contentsOf: url)
        #expect(String(decoding: base, as: UTF8.self).contains(field), "the base file holds \(field)")
        try forged(base) { $0.replacingOccurrences(of: field, with: forgery) }.write(to: url)
        try expectRefused(url, .corruptStore, named, forgery)
    }

    /// A journal line whose checksum holds but whose transaction number is `Int64.max`.
    @Test func anImpossibleTransactionNumberInTheJournalIsCorruption() throws {
        let (_, url) = try compactedStore()
        let journal = URL(filePath: url.path + ".journal")
        try save(["d"], to: try openContainer(url))
        let line = String(decoding: try Data(contentsOf: journal).dropLast(), as: UTF8.self)
        let json = String(line.split(separator: " ", maxSplits: 2)[2])
            .replacingOccurrences(of: "\"transactionNumber\":4", with: "\"transactionNumber\":9223372036854775807")
        let body = "\(json.utf8.count) \(json)"
        try Data("\(String(format: "%08x", CRC32.checksum(Data(body.utf8)))) \(body)\n".utf8).write(to: journal)
        try expectRefused(url, .corruptStore, "transaction 9223372036854775807", "a forged journal line")
    }

    // MARK: Defect 14: duplicate rows

    /// Two rows with one id (checksum forged to hold) used to open with one of them dropped.
    @Test func twoRowsSharingAnIdAreCorruption() throws {
        let (_, url) = try compactedStore()
        let base = try Data(contentsOf: url)
        try forged(base) { text in
            // The first row again, with another title, after it.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let row = lines.firstIndex(where: { $0.contains("\"title\":\"a\"") }) else { return text }
            var copy = lines[row].replacingOccurrences(of: "\"title\":\"a\"", with: "\"title\":\"twin\"")
            if !copy.hasSuffix(",") { copy += "," }
            return (lines[..<row] + [copy] + lines[row...]).joined(separator: "\n")
        }.write(to: url)
        try expectRefused(url, .corruptStore, "two Entry rows with the id", "a duplicated row")
    }

    // MARK: Defect 12: FIFOs

    /// A FIFO at the store's path, its journal's or its lock file's used to block the open for
    /// good (`open` without `O_NONBLOCK` waits for a writer). Now: a typed error, at once.
    @Test(arguments: ["store.json", "store.json.journal", "store.json.lock"])
    func aFIFOAtAStorePathIsATypedErrorAtOnce(_ name: String) throws {
        let (directory, url) = try compactedStore()
        let fifo = directory.appending(path: name)
        try? FileManager.default.removeItem(at: fifo)
        try makeFIFO(at: fifo)
        for allowsSave in [false, true] {
            switch outcomeWithin(10, releasing: fifo, { _ = try openContainer(url, allowsSave: allowsSave) }) {
            case .hung:
                Issue.record("\(name), allowsSave \(allowsSave): the open blocked on the FIFO")
            case .returned:
                Issue.record("\(name), allowsSave \(allowsSave): the store opened")
            case .threw(let error):
                let error = try #require(error as? DataStoreError, "\(error)")
                #expect(error.code == .invalidConfiguration && error.message.contains("FIFO") && error.message.contains(fifo.path),
                        "\(name): \(error)")
            }
        }
    }

    // MARK: Defect 13: a damaged complete last line

    /// The journal after three saves, and where its last line starts.
    func journalOfThreeSaves() throws -> (url: URL, journal: URL, data: Data, lastLine: Int) {
        let url = try temporaryDirectory().appending(path: "store.json")
        try save(["a", "b", "c"], to: try openContainer(url))
        let journal = URL(filePath: url.path + ".journal")
        let data = try Data(contentsOf: journal)
        return (url, journal, data, data.dropLast().lastIndex(of: UInt8(ascii: "\n"))! + 1)
    }

    /// A changed byte in the last line, written whole (its checksum header and newline are
    /// there): its length field used to make the line look torn, and a writable open cut the
    /// acknowledged save `c`. The same damage in a middle line was, and is, `.corruptStore`.
    @Test(arguments: ["length", "checksum", "entry", "newline inside"])
    func aDamagedCompleteLastLineIsCorruptionNotATornAppend(_ part: String) throws {
        let (url, journal, pristine, lastLine) = try journalOfThreeSaves()
        for (line, start) in [("last", lastLine), ("first", 0)] {
            var data = pristine
            let length = start + 9   // the first digit of the length
            switch part {
            case "length": data[length] = data[length] == UInt8(ascii: "9") ? UInt8(ascii: "8") : data[length] + 1
            case "checksum": data[start + 3] = data[start + 3] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            case "entry": data[start + 40] ^= 0x01
            default: data[start + 40] = UInt8(ascii: "\n")
            }
            try data.write(to: journal)
            try expectRefused(url, .corruptStore, "byte \(start)", "\(part) of the \(line) line")
        }
    }

    /// The negative control of the case above: the same last line cut short (a write a crash
    /// stopped), or with a block never written (zeros, power lost before its flush), is a
    /// torn append: the store opens without it, and a writable open cuts it.
    @Test(arguments: ["cut short", "zeros inside"])
    func aTornLastLineIsStillCutBack(_ tear: String) throws {
        let (url, journal, pristine, lastLine) = try journalOfThreeSaves()
        var data = pristine
        if tear == "cut short" {
            data = data.prefix(data.count - 3)
        } else {
            data.replaceSubrange((lastLine + 10)..<(lastLine + 30), with: Data(count: 20))
        }
        try data.write(to: journal)
        #expect(try titles(try openContainer(url, allowsSave: false)) == ["a", "b"])
        #expect(try Data(contentsOf: journal) == data, "a read-only open cuts nothing")
        #expect(try titles(try openContainer(url)) == ["a", "b"])
        #expect(try Data(contentsOf: journal) == pristine.prefix(lastLine), "cut back to the whole lines")
    }

    // MARK: Defect 16: a torn first line after a compaction

    /// Right after a compaction empties the journal, a save's line longer than a sector is
    /// written at offset 0; power lost before its flush, with the first sector never written
    /// and a later one written, left zeros then the line's tail. Both opens used to fail with
    /// `.corruptStore`. The save was never acknowledged: it is a torn append, cut back.
    @Test(arguments: [0, 1])
    func aTornFirstLineAfterACompactionIsCutBack(_ lostSector: Int) throws {
        let (_, url) = try compactedStore()
        let journal = URL(filePath: url.path + ".journal")
        #expect(try Data(contentsOf: journal).isEmpty, "the compaction emptied the journal")
        let container = try openContainer(url)
        let context = ModelContext(container)
        context.insert(Entry(String(repeating: "long ", count: 100)))   // a line of about 750 bytes
        try context.save()
        var data = try Data(contentsOf: journal)
        #expect(data.count > 512 && data.count < 1_024, "one line over two sectors: \(data.count) bytes")
        let sector = (lostSector * 512)..<min(data.count, (lostSector + 1) * 512)
        data.replaceSubrange(sector, with: Data(count: sector.count))   // that sector never written
        try data.write(to: journal)
        #expect(try titles(try openContainer(url, allowsSave: false)) == ["a", "b", "c"])
        #expect(try titles(try openContainer(url)) == ["a", "b", "c"])
        #expect(try Data(contentsOf: journal).isEmpty, "the torn line was cut")
        try save(["d"], to: try openContainer(url))
        #expect(try titles(try openContainer(url)) == ["a", "b", "c", "d"])
    }

    /// A journal replaced by other bytes (no line, no block never written) is still refused.
    @Test func aJournalOfForeignBytesIsStillCorruption() throws {
        let (_, url) = try compactedStore()
        try Data("hello, this is not a journal".utf8).write(to: URL(filePath: url.path + ".journal"))
        try expectRefused(url, .corruptStore, "byte 0", "a foreign journal")
    }
}

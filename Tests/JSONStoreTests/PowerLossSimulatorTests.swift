import Foundation
import StoreProtocol
import StoreFiles
import StoreTestSupport
import Testing

/// The power-loss simulator itself: what it loses, what it keeps, when it stops the machine.
@Suite struct PowerLossSimulatorTests {
    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    /// Files made before the simulator starts count as durable.
    func directory(with files: [String: String]) throws -> URL {
        let directory = try temporaryDirectory()
        for (name, contents) in files { try Data(contents.utf8).write(to: directory.appending(path: name)) }
        return directory
    }

    @Test func unsyncedOperationsAreLostAndSyncedOnesAreNot() throws {
        let directory = try self.directory(with: ["replaced": "old", "removed": "doomed"])
        let simulator = PowerLossSimulator(directory: directory, crashAt: 1_000, sabotage: .none)
        simulator.start()
        let appended = directory.appending(path: "appended")
        try FileIO.appendDurably(Data("aaaa".utf8), to: appended.path, expectedLength: 0)              // flushed, entry too
        try FileIO.appendDurably(Data("bbbb".utf8), to: appended.path, expectedLength: 4, sync: false) // not flushed
        try FileIO.replaceAtomically(directory.appending(path: "replaced").path, with: Data("new".utf8))
        try FileIO.remove(directory.appending(path: "removed").path)                                   // entry not flushed
        var generator = SeededGenerator(seed: 1)
        let report = simulator.powerLoss(using: &generator, lossProbability: 1, garbles: false)

        #expect(report.lost.count == 2, "\(report)")
        #expect(text(appended) == "aaaa")
        #expect(text(directory.appending(path: "replaced")) == "new")
        #expect(text(directory.appending(path: "removed")) == "doomed")
        #expect(!simulator.hasCrashed)
    }

    @Test func withNothingLostTheFilesStayAsWritten() throws {
        let directory = try self.directory(with: ["removed": "doomed"])
        let simulator = PowerLossSimulator(directory: directory, crashAt: 1_000, sabotage: .none)
        simulator.start()
        let appended = directory.appending(path: "appended")
        try FileIO.appendDurably(Data("aaaa".utf8), to: appended.path, expectedLength: 0, sync: false)
        try FileIO.appendDurably(Data("bbbb".utf8), to: appended.path, expectedLength: 4, sync: false)
        try FileIO.remove(directory.appending(path: "removed").path)
        var generator = SeededGenerator(seed: 1)
        let report = simulator.powerLoss(using: &generator, lossProbability: 0, garbles: false)

        // Two writes and the unlink (appending at 0 flushes the directory: the create is durable).
        #expect(report.unsynced.count == 3 && report.lost.isEmpty, "\(report)")
        #expect(text(appended) == "aaaabbbb")
        #expect(text(directory.appending(path: "removed")) == nil)
    }

    /// The Nth operation fails, and every one after it: the machine has stopped.
    @Test func theNthOperationAndEveryLaterOneFail() throws {
        let directory = try self.directory(with: ["other": "x"])
        let simulator = PowerLossSimulator(directory: directory, crashAt: 3, sabotage: .none)
        simulator.start()
        let file = directory.appending(path: "file").path
        // Operations: create, write, flush (the third: refused).
        #expect(throws: DataStoreError.self) { try FileIO.appendDurably(Data("aaaa".utf8), to: file, expectedLength: 0) }
        #expect(simulator.hasCrashed)
        #expect(simulator.crashEvent?.hasPrefix("fsync ") == true, "\(simulator.crashEvent ?? "none")")
        #expect(throws: DataStoreError.self) { try FileIO.remove(directory.appending(path: "other").path) }
        #expect(text(directory.appending(path: "other")) == "x")
        // Files elsewhere are not affected.
        let elsewhere = try temporaryDirectory().appending(path: "file").path
        try FileIO.appendDurably(Data("c".utf8), to: elsewhere, expectedLength: 0)
        // The failed append's clean-up (cut back, flush) never ran: the write is still there
        // until the rewind decides.
        #expect(try FileIO.read(file) == Data("aaaa".utf8))
        var generator = SeededGenerator(seed: 2)
        simulator.powerLoss(using: &generator, lossProbability: 1, garbles: false)
        #expect(!FileManager.default.fileExists(atPath: file), "the create was never flushed either")
    }

    /// A rename whose directory was not flushed is undone: the file it replaced comes back.
    @Test func aLostRenameBringsBackTheReplacedFile() throws {
        let directory = try self.directory(with: ["base": "old"])
        // create the temporary file, write, flush it, rename, flush the directory (refused).
        let simulator = PowerLossSimulator(directory: directory, crashAt: 5, sabotage: .none)
        simulator.start()
        #expect(throws: DataStoreError.self) {
            try FileIO.replaceAtomically(directory.appending(path: "base").path, with: Data("new".utf8))
        }
        #expect(text(directory.appending(path: "base")) == "new")
        var generator = SeededGenerator(seed: 3)
        simulator.powerLoss(using: &generator, lossProbability: 1, garbles: false)
        #expect(text(directory.appending(path: "base")) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["base"])
    }

    /// Garbling touches only the last block of an unflushed write.
    @Test func garblingStaysInTheUnflushedBlock() throws {
        var garbled = 0
        for seed in UInt64(0)..<20 {
            let directory = try temporaryDirectory()
            let file = directory.appending(path: "file").path
            let flushed = Data((0..<1_000).map { UInt8($0 % 251) })
            let unflushed = Data(repeating: 7, count: 1_500)
            let simulator = PowerLossSimulator(directory: directory, crashAt: 1_000, sabotage: .none)
            simulator.start()
            try FileIO.appendDurably(flushed, to: file, expectedLength: 0)
            try FileIO.appendDurably(unflushed, to: file, expectedLength: 1_000, sync: false)
            var generator = SeededGenerator(seed: seed)
            let report = simulator.powerLoss(using: &generator, lossProbability: 0, garbles: true)
            let data = try FileIO.read(file)
            #expect(data.count == 2_500)
            #expect(data.prefix(2_048) == (flushed + unflushed).prefix(2_048), "seed \(seed): only the last block (2048..<2500) may change")
            if data != flushed + unflushed { garbled += 1 }
            #expect(report.garbled.count <= 1, "seed \(seed): one file, one block at most: \(report)")
        }
        #expect(garbled > 0, "some seeds garble")
    }

    /// The negative control's switch: ignored flushes make flushed data losable.
    @Test func sabotageIgnoresFlushes() throws {
        let directory = try temporaryDirectory()
        let file = directory.appending(path: "file").path
        let simulator = PowerLossSimulator(directory: directory, crashAt: 1_000, sabotage: .skipFileSync)
        simulator.start()
        try FileIO.appendDurably(Data("aaaa".utf8), to: file, expectedLength: 0)
        var generator = SeededGenerator(seed: 4)
        let report = simulator.powerLoss(using: &generator, lossProbability: 1, garbles: false)
        #expect(report.lost.count == 1, "the write, flushed but the flush ignored: \(report)")   // the entry was flushed
        #expect(try FileIO.read(file).isEmpty)
    }
}

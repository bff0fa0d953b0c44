import Foundation
import PostgresStore
import StoreProtocol
import Testing

/// `historyUpdates` wakes on NOTIFY: saves by another store object (another connection, as
/// another process would be) arrive in order, each once.
@Suite("History updates", .enabled(if: TestServer.isConfigured))
struct HistoryUpdatesTests {
    @Test("Transactions saved elsewhere arrive through LISTEN/NOTIFY, in order, once", .timeLimit(.minutes(1)))
    func updatesArrive() async throws {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(PGNote.self)
        let reader = try PostgresStore(configuration)
        let writer = try PostgresStore(configuration)
        // From the start of history, so that saves made before the stream listens count too.
        let stream = reader.historyUpdates(after: DefaultHistoryToken(storeIdentifier: reader.identifier, transactionNumber: 0))
        let container = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        _ = writer
        for rank in 1...3 {
            let context = ModelContext(container)
            context.insert(PGNote(title: "note \(rank)", rank: rank))
            try context.save()
        }
        var numbers: [Int64] = []
        for try await transaction in stream {
            numbers.append(transaction.transactionIdentifier)
            if numbers.count == 3 { break }
        }
        #expect(numbers == [1, 2, 3])
    }

    @Test("ModelContainer.historyUpdates wakes on NOTIFY (its polling interval here is an hour)", .timeLimit(.minutes(1)))
    func containerUpdatesWakeOnNotify() async throws {
        var configuration = try TestServer.configuration()
        configuration.schema = Schema(PGNote.self)
        let reader = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        let writer = try ModelContainer(for: Schema(PGNote.self), configurations: [configuration])
        #expect(reader.stores.first is any SaveNotifying)
        let start = try reader.currentHistoryToken()
        let stream = reader.historyUpdates(after: start, pollInterval: .seconds(3_600), maximumPollInterval: .seconds(3_600))
        var iterator = stream.makeAsyncIterator()
        func save(_ rank: Int) throws {
            let context = ModelContext(writer)
            context.insert(PGNote(title: "note \(rank)", rank: rank))
            try context.save()
        }
        try save(1)
        let first = try await iterator.next()
        // The stream has read history since it listens; the next save is found by a read that
        // NOTIFY wakes (or, if the stream reads again first, by that read).
        try save(2)
        let second = try await iterator.next()
        #expect([first, second].map { $0?.transactionIdentifier } == [1, 2])
    }
}

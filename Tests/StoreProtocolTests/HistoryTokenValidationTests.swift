import Foundation
import MemoryStore
import StoreProtocol
import StoreTestSupport
import Testing

/// Issue 11: a token no store made is refused, never read as "everything" or "expired".
@Suite struct HistoryTokenValidationTests {
    @Test(arguments: ["{\"positions\":{}}", "{\"positions\":{\"S\":-1}}", "{}", "{\"positions\":{\"S\":\"1\"}}"])
    func malformedTokensDoNotDecode(_ json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DefaultHistoryToken.self, from: Data(json.utf8)) }
    }

    @Test func aDecodedTokenRoundTrips() throws {
        let token = DefaultHistoryToken(positions: ["A": 0, "B": 7])
        #expect(try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(token)) == token)
    }

    /// The token of a container whose stores have no history yet names them at position 0: it
    /// survives being saved (decoding refuses a token naming no store) and resumes from the start.
    @Test func theTokenOfAStoreWithoutHistoryYetRoundTrips() throws {
        let container = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration())
        let start = try container.currentHistoryToken()
        #expect(start.positions == [container.stores[0].identifier: 0])
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(start))
        let context = ModelContext(container)
        context.insert(Note("a"))
        try context.save()
        #expect(try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: decoded)).count == 1)
    }

    /// Built in code, the same tokens are foreign to every store: an empty one does not return
    /// all history, a negative one does not read as expired.
    @Test func tokensNamingNoStoreOrANegativePositionAreForeign() throws {
        let container = try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        context.insert(Note("a"))
        try context.save()
        let store = container.stores[0].identifier
        for token in [DefaultHistoryToken(positions: [:]), DefaultHistoryToken(storeIdentifier: store, transactionNumber: -1)] {
            #expect(throws: HistoryError(.foreignToken, ""), "\(token)") {
                try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token))
            }
        }
    }
}

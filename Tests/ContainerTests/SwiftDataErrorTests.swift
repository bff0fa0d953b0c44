@testable import DataStores
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// Each `SwiftDataError` member as a `catch` pattern catches what the framework throws in that
/// situation, and not what it throws in another (the negative controls).
@Suite struct SwiftDataErrorTests {
    /// The error `body` throws; a test fails when it throws none.
    func thrown(_ body: () throws -> Void) throws -> any Error {
        do {
            try body()
        } catch {
            return error
        }
        throw ExpectedAnError()
    }

    struct ExpectedAnError: Error {}

    /// Every member that catches `error`.
    func members(catching error: any Error) -> Set<SwiftDataError.Code> {
        Set(Self.allMembers.filter { $0 ~= error }.map(\.code))
    }

    static let allMembers: [SwiftDataError] = [
        .includePendingChangesWithBatchSize, .sortingPendingChangesWithIdentifiers, .unsupportedKeyPath, .unsupportedPredicate,
        .unsupportedSortDescriptor, .configurationFileNameContainsInvalidCharacters, .configurationFileNameTooLong,
        .configurationSchemaNotFoundInContainerSchema, .duplicateConfiguration, .loadIssueModelContainer, .modelValidationFailure,
        .missingModelContext, .backwardMigration, .unknownSchema, .historyTokenExpired, .invalidTransactionFetchRequest,
    ]

    // MARK: History

    /// A container keeping the last transaction only, and a token that three saves expire.
    func expiredTokenFetch() throws -> any Error {
        let container = try ModelContainer(for: ConfigNote.self,
            configurations: MemoryStoreConfiguration(historyRetention: .transactions(1)))
        let context = ModelContext(container)
        context.insert(ConfigNote(text: "first"))
        try context.save()
        let token = try container.currentHistoryToken()
        for text in ["second", "third"] {
            context.insert(ConfigNote(text: text))
            try context.save()
        }
        return try thrown { _ = try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token)) }
    }

    func foreignTokenFetch() throws -> any Error {
        func container() throws -> ModelContainer {
            let container = try ModelContainer(for: ConfigNote.self, configurations: MemoryStoreConfiguration())
            let context = ModelContext(container)
            context.insert(ConfigNote(text: "a"))
            try context.save()
            return container
        }
        let token = try container().currentHistoryToken()
        let other = try container()
        return try thrown { _ = try other.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: token)) }
    }

    @Test func historyTokenExpiredCatchesTheExpiredTokenError() throws {
        let error = try expiredTokenFetch()
        #expect(HistoryError.historyTokenExpired ~= error)
        // As the talk writes it.
        var caught = false
        do { throw error } catch SwiftDataError.historyTokenExpired { caught = true } catch {}
        #expect(caught)
        #expect(members(catching: error) == [.historyTokenExpired])
    }

    @Test func invalidTransactionFetchRequestCatchesAForeignToken() throws {
        let error = try foreignTokenFetch()
        #expect(HistoryError.foreignToken ~= error)
        #expect(members(catching: error) == [.invalidTransactionFetchRequest], "not historyTokenExpired")
    }

    // MARK: Container

    @Test func loadIssueModelContainerCatchesAStoreThatCannotOpen() throws {
        // A file that is not a store.
        let url = try temporaryDirectory().appending(path: "trips.store")
        try Data("not a store".utf8).write(to: url)
        let corrupt = try thrown { _ = try ModelContainer(for: ConfigNote.self, configurations: ModelConfiguration(url: url)) }
        #expect(DataStoreError.corruptStore ~= corrupt)
        #expect(members(catching: corrupt) == [.loadIssueModelContainer])
        // The default store under a home that does not exist.
        let missing = try temporaryDirectory().appending(path: "gone")
        let noHome = try thrown {
            _ = try ModelContainer(for: ConfigNote.self, configurations: ModelConfiguration(
                nil, schema: nil, isStoredInMemoryOnly: false, environment: ["HOME": missing.path], executableName: "notes"))
        }
        var caught = false
        do { throw noHome } catch SwiftDataError.loadIssueModelContainer { caught = true } catch {}
        #expect(caught)
        #expect(members(catching: noHome) == [.loadIssueModelContainer])
    }

    @Test func theFileNameMembersCatchWhatModelConfigurationThrows() throws {
        let home = try temporaryDirectory()
        func open(_ name: String) throws -> any Error {
            try thrown {
                _ = try ModelContainer(for: ConfigNote.self, configurations: ModelConfiguration(
                    name, schema: nil, isStoredInMemoryOnly: false, environment: ["HOME": home.path], executableName: "notes"))
            }
        }
        #expect(members(catching: try open("trips/2026")) == [.configurationFileNameContainsInvalidCharacters])
        #expect(members(catching: try open(String(repeating: "é", count: 130))) == [.configurationFileNameTooLong])
    }

    // MARK: Context

    @Test func modelValidationFailureCatchesADeniedDelete() throws {
        let container = try ModelContainer(for: ConfigOwner.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let owner = ConfigOwner()
        context.insert(owner)
        owner.pets.append(ConfigPet())
        try context.save()
        context.delete(owner)
        let error = try thrown { try context.save() }
        #expect(ModelContextError.deleteDenied ~= error)
        #expect(members(catching: error) == [.modelValidationFailure])
    }

    @Test func unsupportedPredicateCatchesAPredicateThatThrows() throws {
        let container = try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(ConfigTrip(name: "Oslo"))
        try context.save()
        let error = try thrown {
            _ = try ModelContext(container).fetch(FetchDescriptor<ConfigTrip>(predicate: #Predicate { $0.lodging!.placeName == "x" }))
        }
        #expect(DataStoreError.invalidPredicate ~= error)
        #expect(members(catching: error) == [.unsupportedPredicate])
    }

    // MARK: Migration

    @Test func theMigrationMembersCatchAStoreOfAnotherSchema() throws {
        let name = "notes-\(UUID())"
        let container = try ModelContainer(for: ConfigNote.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        let context = ModelContext(container)
        context.insert(ConfigNote(text: "kept"))
        try context.save()
        let error = try thrown {
            _ = try ModelContainer(for: ConfigRenamedNote.self, configurations: MemoryStoreConfiguration(name: name, isShared: true))
        }
        #expect(DataStoreError.incompatibleSchema ~= error)
        #expect(members(catching: error) == [.backwardMigration, .unknownSchema])
    }

    // MARK: Errors no member stands for, and SwiftDataError itself

    @Test func aReadOnlySaveIsCaughtByNoMember() throws {
        let container = try ModelContainer(for: ConfigNote.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true, allowsSave: false))
        let context = ModelContext(container)
        context.insert(ConfigNote(text: "refused"))
        let error = try thrown { try context.save() }
        #expect(DataStoreError.readOnly ~= error)
        #expect(members(catching: error) == [])
    }

    @Test func eachMemberCatchesASwiftDataErrorOfItsCodeOnly() {
        for member in Self.allMembers {
            let error: any Error = SwiftDataError(member.code, "thrown")
            #expect(members(catching: error) == [member.code])
            #expect(member == SwiftDataError(member.code, "another message"), "equal by code")
        }
        #expect(SwiftDataError(.duplicateConfiguration, "Two stores at /data/trips.store.").description == "Two stores at /data/trips.store.")
    }
}

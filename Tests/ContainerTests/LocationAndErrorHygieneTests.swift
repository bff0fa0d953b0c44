import Foundation
import JSONStore
import LogStore
import MemoryStore
import DataStores
import StoreTestSupport
import Testing

/// A location's yes-or-no options, its numbers and its secrets, read the same way by every
/// backend (issue 28: `read-only=TRUE` gave a writable store, `nan` and `inf` durations were
/// taken, and the whole location, password included, was put into messages).
@Suite struct LocationOptionHygieneTests {
    let registry = StoreRegistry(JSONStoreConfiguration.self, LogStoreConfiguration.self, MemoryStoreConfiguration.self)

    @Test(arguments: [
        ("true", false), ("TRUE", false), ("Yes", false), ("1", false), ("false", true), ("No", true), ("0", true),
    ])
    func readOnlySpellingsOfEveryFileStore(_ value: String, _ allowsSave: Bool) throws {
        let directory = try temporaryDirectory().path
        let json = try registry.configuration(for: "json:\(directory)/a.json?read-only=\(value)")
        let log = try registry.configuration(for: "log:\(directory)/log?read-only=\(value)")
        #expect(json.allowsSave == allowsSave && log.allowsSave == allowsSave, "read-only=\(value)")
    }

    @Test(arguments: ["json:/tmp/a.json?read-only=maybe", "log:/tmp/l?read-only=on", "json:/tmp/a.json?read-only=tru"])
    func anUnreadableReadOnlyIsRefused(_ location: String) {
        let error = #expect(throws: DataStoreError.self) { try registry.configuration(for: location) }
        #expect(error?.code == .invalidConfiguration && error?.message.contains("true or false") == true, "\(String(describing: error))")
    }

    @Test(arguments: ["nan", "inf", "-inf", "-5s", "infinityd", "nans"])
    func durationsMustBeFiniteAndNotNegative(_ value: String) throws {
        let location = try StoreLocation(parsing: "log:/tmp/l?retention-age=\(value)")
        #expect(throws: DataStoreError.invalidConfiguration) { try location.duration("retention-age") }
    }

    @Test func descriptionsAndErrorsHideThePassword() throws {
        let secret = "pa55-w0rd"
        let location = try StoreLocation(parsing: "db://app:\(secret)@host:5432/base?token=\(secret)&read-only=maybe")
        #expect(location.path.contains(secret) && location.options["token"] == secret, "path and options keep what was written")
        var dumped = ""
        dump(location, to: &dumped)
        for text in [location.description, String(reflecting: location), dumped] {
            #expect(!text.contains(secret) && text.contains("app:***@host"), "\(text)")
        }
        let errors: [DataStoreError] = [
            #expect(throws: DataStoreError.self) { try location.allowOnly(["read-only"]) },
            #expect(throws: DataStoreError.self) { try location.boolean("read-only") },
            #expect(throws: DataStoreError.self) { try StoreLocation(parsing: "db://app:\(secret)@host/base?flag") },
            #expect(throws: DataStoreError.self) { try StoreLocation(parsing: "db://app:pa?ss@host/base") },
            #expect(throws: DataStoreError.self) { try registry.configuration(for: "db://app:\(secret)@host/base") },
        ].compactMap { $0 }
        #expect(errors.count == 5)
        for error in errors {
            #expect(!String(reflecting: error).contains(secret) && !String(reflecting: error).contains("pa?ss"), "\(error.message)")
        }
    }
}

/// A model with a unique name, for the messages of unique violations.
@Model final class UniqueBadge {
    #Unique<UniqueBadge>([\.holder])
    var id = UUID()
    var holder: String
    init(holder: String) { self.holder = holder }
}

/// A unique violation's message names the models (by id) and the constraint, and keeps the
/// values of their attributes (user data) to `debugDescription`, in every backend that saves
/// through `SnapshotTable` (issue 28).
@Suite struct UniqueViolationMessageTests {
    @Test(arguments: ["memory", "json"])
    func valuesOnlyInTheDebugDescription(_ backend: String) throws {
        let configuration: any DataStoreConfiguration = backend == "memory"
            ? MemoryStoreConfiguration(name: UUID().uuidString)
            : JSONStoreConfiguration(url: try temporaryDirectory().appending(path: "badges.json"))
        let container = try ModelContainer(for: Schema(UniqueBadge.self), configurations: [configuration])
        let context = ModelContext(container)
        let first = UniqueBadge(holder: "alice@example.com"), second = UniqueBadge(holder: "bob@example.com")
        context.insert(first)
        context.insert(second)
        try context.save()
        second.holder = "alice@example.com"
        let error = try #require(throws: DataStoreError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(error.message.contains("holder") && error.message.contains("UniqueBadge"), "\(error.message)")
        // The models by their ids, the values of their attributes only in the debug description.
        #expect(error.message.contains(first.id.uuidString) && error.message.contains(second.id.uuidString), "\(error.message)")
        for text in [error.message, "\(error)"] {
            #expect(!text.contains("alice@example.com"), "\(text)")
        }
        #expect(String(reflecting: error).contains("alice@example.com"), "\(String(reflecting: error))")
    }
}

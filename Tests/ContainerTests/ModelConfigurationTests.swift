@testable import DataStores
import JSONStore
import LogStore
import MemoryStore
import StoreTestSupport
import Testing

/// `ModelConfiguration`: SwiftData's initializers, and the backend each choice opens (the
/// backend's own store, not a wrapper).
@Suite struct ModelConfigurationTests {
    /// Saves a trip with a bucket-list item through a new context of `container`.
    func saveTrip(_ name: String, in container: ModelContainer) throws {
        let context = ModelContext(container)
        let trip = ConfigTrip(name: name)
        context.insert(trip)
        trip.bucketList.append(ConfigBucketItem(title: "see \(name)"))
        try context.save()
    }

    func tripNames(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<ConfigTrip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    // MARK: Backend by configuration

    @Test func inMemoryOpensAPrivateMemoryStore() throws {
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(configuration.url.path == "/dev/null")
        #expect(configuration.name == "default")
        let container = try ModelContainer(for: ConfigTrip.self, configurations: configuration)
        #expect(container.stores.count == 1 && container.stores[0] is MemoryStore)
        try saveTrip("Oslo", in: container)
        #expect(try tripNames(container) == ["Oslo"])
        // In memory means gone with the container: another one starts empty.
        #expect(try tripNames(ModelContainer(for: ConfigTrip.self, configurations: configuration)) == [])
        // The url an in-memory configuration reports, given as a url, is in memory too (it was
        // refused as a character device).
        let devNull = try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(url: URL(filePath: "/dev/null")))
        #expect(devNull.stores.count == 1 && devNull.stores[0] is MemoryStore)
        try saveTrip("Oslo", in: devNull)
        #expect(try tripNames(devNull) == ["Oslo"])
    }

    @Test func aURLOpensAJSONStoreAtThatFile() throws {
        let url = try temporaryDirectory().appending(path: "trips.store")
        let configuration = ModelConfiguration(url: url)
        #expect(configuration.name == "trips.store" && configuration.id == url && !configuration.isStoredInMemoryOnly)
        let container = try ModelContainer(for: ConfigTrip.self, configurations: configuration)
        let store = try #require(container.stores.first as? JSONStore)
        #expect(store.configuration.url == url)
        try saveTrip("Bergen", in: container)
        #expect(FileManager.default.fileExists(atPath: url.path))
        // Read back through a typed configuration of the same file: the same data.
        let again = try ModelContainer(for: ConfigTrip.self, configurations: JSONStoreConfiguration(url: url))
        #expect(try tripNames(again) == ["Bergen"])
        #expect(try ModelContext(again).fetch(FetchDescriptor<ConfigBucketItem>()).map(\.title) == ["see Bergen"])
    }

    @Test func aURLInAMissingDirectoryIsRefusedNamingIt() throws {
        let directory = try temporaryDirectory().appending(path: "missing")
        #expect {
            try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(url: directory.appending(path: "trips.store")))
        } throws: { error in
            (error as? DataStoreError)?.code == .invalidConfiguration && "\(error)".contains(directory.path)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func aRegisteredSchemeOrExtensionPicksThatBackend() throws {
        ModelConfiguration.storeRegistry.register(LogStoreConfiguration.self)
        let directory = try temporaryDirectory()

        // The scheme: a log store directory.
        let byScheme = try ModelContainer(for: ConfigNote.self,
            configurations: ModelConfiguration(url: try #require(URL(string: "log:" + directory.appending(path: "a").path))))
        #expect(byScheme.stores.first is LogStore)
        // The extension of a file URL: also a log store.
        let byExtension = try ModelContainer(for: ConfigNote.self,
            configurations: ModelConfiguration(url: directory.appending(path: "notes.log")))
        #expect(byExtension.stores.first is LogStore)
        let context = ModelContext(byExtension)
        context.insert(ConfigNote(text: "logged"))
        try context.save()
        let reread = try ModelContainer(for: ConfigNote.self,
            configurations: LogStoreConfiguration(directory: directory.appending(path: "notes.log")))
        #expect(try ModelContext(reread).fetch(FetchDescriptor<ConfigNote>()).map(\.text) == ["logged"])

        // A scheme registered with a function, and `memory:` (registered from the start).
        let name = "config-\(UUID())"
        ModelConfiguration.storeRegistry.register(scheme: "config-test", help: "config-test:NAME") { location in
            MemoryStoreConfiguration(name: "config-test " + location.path, isShared: true)
        }
        let custom = try ModelContainer(for: ConfigTrip.self,
            configurations: ModelConfiguration(url: try #require(URL(string: "config-test:" + name))))
        let memory = try #require(custom.stores.first as? MemoryStore)
        #expect(memory.configuration.name == "config-test " + name)
        let shared = try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(url: try #require(URL(string: "memory:" + name))))
        #expect(shared.stores.first is MemoryStore)
    }

    @Test func anUnregisteredSchemeIsRefusedWithoutShowingItsPassword() throws {
        let url = try #require(URL(string: "nosuchstore://app:s3cret@db.example/trips"))
        let error = try #require(throws: DataStoreError.self) {
            try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(url: url))
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("'nosuchstore'") && error.message.contains("json, "))
        #expect(!error.message.contains("s3cret"))
    }

    @Test func allowsSaveFalseOpensTheChosenStoreReadOnly() throws {
        let url = try temporaryDirectory().appending(path: "trips.store")
        try saveTrip("Tromsø", in: ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(url: url)))
        let readOnly = try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(try tripNames(readOnly) == ["Tromsø"])
        #expect(throws: DataStoreError.readOnly) { try saveTrip("Narvik", in: readOnly) }
        #expect(try tripNames(readOnly) == ["Tromsø"])

        // Passed on to a backend a registered scheme makes, and to the memory store.
        let memory = try ModelContainer(for: ConfigTrip.self,
            configurations: ModelConfiguration(url: try #require(URL(string: "memory:readonly-\(UUID())")), allowsSave: false))
        #expect(throws: DataStoreError.readOnly) { try saveTrip("Alta", in: memory) }
        let inMemory = try ModelContainer(for: ConfigTrip.self,
            configurations: ModelConfiguration("memo", isStoredInMemoryOnly: true, allowsSave: false))
        #expect(throws: DataStoreError.readOnly) { try saveTrip("Alta", in: inMemory) }
    }

    @Test func aSchemaLimitsTheStoreBesideTypedConfigurations() throws {
        let url = try temporaryDirectory().appending(path: "notes.json")
        let container = try ModelContainer(for: ConfigTrip.self, ConfigNote.self, configurations:
            ModelConfiguration("trips", schema: Schema([ConfigTrip.self]), isStoredInMemoryOnly: true),
            JSONStoreConfiguration(url: url, schema: Schema([ConfigNote.self])))
        #expect(try container.store(for: ConfigTrip.self) is MemoryStore)
        #expect(try container.store(for: ConfigBucketItem.self) is MemoryStore)
        #expect(try container.store(for: ConfigNote.self) is JSONStore)
    }

    @Test func forTypesIncludesTheTypesTheirRelationshipsReach() throws {
        let configuration = ModelConfiguration(for: ConfigTrip.self, isStoredInMemoryOnly: true)
        #expect(Set(try #require(configuration.schema).entities.map(\.name))
            == [ConfigTrip.entityName, ConfigBucketItem.entityName, ConfigLodging.entityName])
        #expect(configuration.isStoredInMemoryOnly)
        let container = try ModelContainer(for: ConfigNote.self, configurations: configuration,
                                           MemoryStoreConfiguration(schema: Schema([ConfigNote.self])))
        #expect(try container.store(for: ConfigLodging.self) is MemoryStore)
    }

    @Test func groupContainerAndCloudKitAreAcceptedAndChangeNothing() throws {
        let configuration = ModelConfiguration("synced", isStoredInMemoryOnly: true,
                                               groupContainer: .identifier("group.example.trips"),
                                               cloudKitDatabase: .private("iCloud.example.trips"))
        #expect(configuration.groupContainer == .identifier("group.example.trips"))
        #expect(configuration.cloudKitDatabase == .private("iCloud.example.trips"))
        #expect(configuration != ModelConfiguration("synced", isStoredInMemoryOnly: true))
        let container = try ModelContainer(for: ConfigTrip.self, configurations: configuration)
        try saveTrip("Lofoten", in: container)
        #expect(try tripNames(container) == ["Lofoten"])

        let url = try temporaryDirectory().appending(path: "trips.store")
        let local = ModelConfiguration(url: url, cloudKitDatabase: .none)
        #expect(local.cloudKitDatabase == .none && local.groupContainer == .automatic)
        #expect(try ModelContainer(for: ConfigTrip.self, configurations: local).stores.first is JSONStore)
    }

    @Test func aModelConfigurationIsOpenedOnlyThroughAContainer() throws {
        #expect(throws: DataStoreError.invalidConfiguration) { try ModelConfiguration.UnresolvedStore(ModelConfiguration()) }
    }

    // MARK: The default location

    @Test func theDefaultLocationFollowsXDGThenHome() throws {
        let xdg = ModelConfiguration(nil, schema: nil, isStoredInMemoryOnly: false,
                                     environment: ["XDG_DATA_HOME": "/data/alice", "HOME": "/home/alice"], executableName: "trips")
        #expect(xdg.url.path == "/data/alice/trips/default.store")
        #expect(xdg.name == "default")
        let home = ModelConfiguration("journal", schema: nil, isStoredInMemoryOnly: false,
                                      environment: ["HOME": "/home/alice"], executableName: "trips")
        #expect(home.url.path == "/home/alice/.local/share/trips/journal.store")
        // XDG: a relative XDG_DATA_HOME is ignored.
        let relative = ModelConfiguration(nil, schema: nil, isStoredInMemoryOnly: false,
                                          environment: ["XDG_DATA_HOME": "data", "HOME": "/home/alice"], executableName: "trips")
        #expect(relative.url.path == "/home/alice/.local/share/trips/default.store")
    }

    @Test func theDefaultStoreCreatesItsFoldersAndReopens() throws {
        let home = try temporaryDirectory()
        let configuration = ModelConfiguration(nil, schema: nil, isStoredInMemoryOnly: false,
                                               environment: ["HOME": home.path], executableName: "trips")
        try saveTrip("Oslo", in: ModelContainer(for: ConfigTrip.self, configurations: configuration))
        let file = home.appending(path: ".local/share/trips/default.store")
        #expect(FileManager.default.fileExists(atPath: file.path))
        for folder in [".local", ".local/share", ".local/share/trips"] {
            let permissions = try FileManager.default.attributesOfItem(atPath: home.appending(path: folder).path)[.posixPermissions] as? Int
            #expect(permissions == 0o700, "\(folder): XDG's 0700, not world-readable")
        }
        #expect(try tripNames(ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(url: file))) == ["Oslo"])
    }

    @Test func aMissingHomeIsATypedErrorNamingItAndCreatesNothing() throws {
        let parent = try temporaryDirectory()
        for environment in [["HOME": parent.appending(path: "gone").path],
                            ["XDG_DATA_HOME": parent.appending(path: "gone").path, "HOME": parent.path]] {
            let configuration = ModelConfiguration(nil, schema: nil, isStoredInMemoryOnly: false,
                                                   environment: environment, executableName: "trips")
            let error = try #require(throws: DataStoreError.self) {
                try ModelContainer(for: ConfigTrip.self, configurations: configuration)
            }
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(parent.appending(path: "gone").path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == [], "\(environment)")
        }
    }

    @Test func aReadOnlyHomeIsATypedErrorNamingItAndCreatesNothing() throws {
        let home = try readOnlyDirectory()
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home.path) }
        let before = try FileManager.default.contentsOfDirectory(atPath: home.path)
        let configuration = ModelConfiguration(nil, schema: nil, isStoredInMemoryOnly: false,
                                               environment: ["HOME": home.path], executableName: "trips")
        let error = try #require(throws: DataStoreError.self) { try ModelContainer(for: ConfigTrip.self, configurations: configuration) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(home.appending(path: ".local/share/trips").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == before)
    }

    /// A directory this process cannot create folders in: a fresh one made read-only, or, for
    /// root (whom permissions do not stop), `/sys`, where even root may not make directories.
    func readOnlyDirectory() throws -> URL {
        guard geteuid() == 0 else {
            let directory = try temporaryDirectory()
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
            return directory
        }
        return URL(filePath: "/sys", directoryHint: .isDirectory)
    }

    @Test func aNameThatCannotBeAFileNameIsRefused() throws {
        let home = try temporaryDirectory()
        func open(_ name: String) throws {
            _ = try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration(
                name, schema: nil, isStoredInMemoryOnly: false, environment: ["HOME": home.path], executableName: "trips"))
        }
        for name in ["a/b", "..", ""] {
            #expect(throws: SwiftDataError.configurationFileNameContainsInvalidCharacters, "\(name)") { try open(name) }
        }
        // 241–249 bytes passed a check against `.store` alone and then failed on the journal's
        // or a temporary file's name, leaving a lock file behind.
        for length in [227, 241, 249, 250] {
            #expect(throws: SwiftDataError.configurationFileNameTooLong, "\(length)") { try open(String(repeating: "n", count: length)) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == [])
        // In memory, a name is only a name.
        #expect(throws: Never.self) { try ModelContainer(for: ConfigTrip.self, configurations: ModelConfiguration("a/b", isStoredInMemoryOnly: true)) }
    }

    @Test func theLongestNameAcceptedHoldsItsStore() throws {
        let home = try temporaryDirectory()
        let name = String(repeating: "n", count: 226)
        let configuration = ModelConfiguration(name, schema: nil, isStoredInMemoryOnly: false,
                                               environment: ["HOME": home.path], executableName: "trips")
        do {
            let context = ModelContext(try ModelContainer(for: ConfigTrip.self, configurations: configuration))
            context.insert(ConfigTrip(name: "Iceland"))
            try context.save()
            context.insert(ConfigTrip(name: "Norway"))
            try context.save()   // a journal entry and, on a later open, its temporary files
        }
        let reopened = ModelContext(try ModelContainer(for: ConfigTrip.self, configurations: configuration))
        #expect(try reopened.fetch(FetchDescriptor<ConfigTrip>()).map(\.name).sorted() == ["Iceland", "Norway"])
    }
}

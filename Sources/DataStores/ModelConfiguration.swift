import Foundation
import JSONStore
import MemoryStore
import StoreProtocol

/// SwiftData's description of a store: where its data lives, which models it holds, and whether
/// it may be changed. The container picks the backend from it:
///
/// - `isStoredInMemoryOnly: true`: a `MemoryStore`, private to the container.
/// - a `url` whose scheme (`log:/data/readings`) or, for a file URL, whose extension
///   (`readings.log`) names a backend registered in ``storeRegistry``: that backend, as the
///   registry makes it from the location (`memory` and `json` are registered; register others,
///   such as `LogStoreConfiguration`, before opening).
/// - any other `url`: a `JSONStore` at that file (its directory must exist).
/// - no `url`: a `JSONStore` at the default location,
///   `$XDG_DATA_HOME/<executable>/<name>.store`, or `~/.local/share/<executable>/<name>.store`
///   when `XDG_DATA_HOME` is not set; the container creates the folders below that home when it
///   opens the store, so every process of one program shares the store.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// ```
///
/// It mixes with the backends' own configurations, which say more (history retention, a log's
/// timestamps): `ModelContainer(for: Trip.self, configurations: ModelConfiguration(schema: trips), LogStoreConfiguration(…))`.
/// The container opens the chosen backend's store itself (`ResolvingStoreConfiguration`):
/// `container.stores` holds a `JSONStore` or a `MemoryStore`, not a wrapper.
public struct ModelConfiguration: ResolvingStoreConfiguration, Hashable, Identifiable {
    public typealias Store = UnresolvedStore

    /// The store's name: the file name (`<name>.store`) at the default location, and the name in
    /// messages. `"default"` unless given; for a `url`, its last path component unless given.
    public let name: String
    /// The model types this store holds; `nil` means every type of the container.
    public var schema: Schema?
    /// Where the data lives: the default location or the given URL; `/dev/null` in memory.
    public let url: URL
    /// Whether the data lives in memory only, gone when the container is.
    public let isStoredInMemoryOnly: Bool
    /// `false` opens the store read-only: saves throw `DataStoreError.readOnly`.
    public var allowsSave: Bool
    /// Accepted for SwiftData's signatures; no effect on Linux (there are no app groups): pass a
    /// `url` to share a store between programs.
    public let groupContainer: GroupContainer
    /// Accepted for SwiftData's signatures; no effect on Linux (there is no CloudKit): for sync,
    /// read the store's history (`fetchHistory`) and send the changes yourself.
    public let cloudKitDatabase: CloudKitDatabase
    /// The configuration's identity, as in SwiftData: its ``url``.
    public var id: URL { url }

    /// Set when ``url`` is the default location: the container creates its folders on open.
    let defaultLocation: DefaultStoreLocation?

    /// A store at the default location (`default.store`), or in memory.
    public init(isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A store of these model types (and the types their relationships reach) at the default
    /// location, or in memory.
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A store named `name` (`<name>.store` at the default location), or in memory. Nothing is
    /// checked or created until a container opens it.
    /// - Parameters:
    ///   - name: The store's name; `"default"` when `nil`.
    ///   - schema: The model types the store holds; `nil` for every type of the container.
    ///   - isStoredInMemoryOnly: `true` for a memory store, private to the container.
    ///   - allowsSave: `false` opens the store read-only.
    ///   - groupContainer: No effect on Linux (see ``groupContainer``).
    ///   - cloudKitDatabase: No effect on Linux (see ``cloudKitDatabase``).
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic) {
        self.init(name, schema: schema, isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave,
                  groupContainer: groupContainer, cloudKitDatabase: cloudKitDatabase,
                  environment: ProcessInfo.processInfo.environment, executableName: ProcessInfo.processInfo.processName)
    }

    /// A store at `url`: a JSON store file, or the backend the URL's scheme or extension names
    /// (see ``ModelConfiguration``). Nothing is checked or created until a container opens it.
    /// - Parameters:
    ///   - name: The store's name, for messages; `url`'s last path component when `nil`.
    ///   - schema: The model types the store holds; `nil` for every type of the container.
    ///   - url: The store's file (its directory must exist when the container opens it), or a
    ///     location such as `log:/data/readings` whose scheme names a registered backend.
    ///     `/dev/null` keeps the store in memory, as Core Data's and SwiftData's idiom does.
    ///   - allowsSave: `false` opens the store read-only.
    ///   - cloudKitDatabase: No effect on Linux (see ``cloudKitDatabase``).
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
                cloudKitDatabase: CloudKitDatabase = .automatic) {
        self.name = name ?? url.lastPathComponent
        self.schema = schema
        self.url = url
        isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
        defaultLocation = nil
    }

    /// The default-location initializer with the environment and executable name given, for
    /// tests that must not change the process's environment.
    init(_ name: String?, schema: Schema?, isStoredInMemoryOnly: Bool, allowsSave: Bool = true,
         groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic,
         environment: [String: String], executableName: String) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        if isStoredInMemoryOnly {
            url = URL(filePath: "/dev/null")
            defaultLocation = nil
        } else {
            let location = DefaultStoreLocation(environment: environment, executableName: executableName)
            url = location.directory.appending(path: name + ".store", directoryHint: .notDirectory)
            defaultLocation = location
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.groupContainer == rhs.groupContainer
            && lhs.cloudKitDatabase == rhs.cloudKitDatabase && lhs.defaultLocation == rhs.defaultLocation
            && lhs.schema?.entities.map(\.name) == rhs.schema?.entities.map(\.name)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
        hasher.combine(isStoredInMemoryOnly)
    }
}

extension ModelConfiguration {
    /// SwiftData's app-group choice. No effect on Linux.
    public struct GroupContainer: Hashable, Sendable {
        private enum Choice: Hashable, Sendable { case automatic, none, identifier(String) }
        private let choice: Choice

        /// The app group of the app's entitlements, in SwiftData.
        public static let automatic = GroupContainer(choice: .automatic)
        /// No app group.
        public static let none = GroupContainer(choice: .none)
        /// The app group named `groupName`.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(choice: .identifier(groupName)) }
    }

    /// SwiftData's CloudKit choice. No effect on Linux.
    public struct CloudKitDatabase: Hashable, Sendable {
        private enum Choice: Hashable, Sendable { case automatic, none, `private`(String) }
        private let choice: Choice

        /// The CloudKit container of the app's entitlements, in SwiftData.
        public static let automatic = CloudKitDatabase(choice: .automatic)
        /// No CloudKit sync.
        public static let none = CloudKitDatabase(choice: .none)
        /// The private database of the CloudKit container named `privateDBName`.
        public static func `private`(_ privateDBName: String) -> CloudKitDatabase { CloudKitDatabase(choice: .private(privateDBName)) }
    }
}

import Foundation
import StoreProtocol

/// An insert-only, segmented log in `directory`, for time-series records (readings, events,
/// audit records).
///
/// ```swift
/// let log = LogStoreConfiguration(directory: URL(filePath: "readings"),
///                                 timestamps: [LogTimestamp(\Reading.timestamp)],
///                                 historyRetention: .age(30 * 86_400))
/// ```
public struct LogStoreConfiguration: DataStoreConfiguration {
    public typealias Store = LogStore

    public var name: String
    /// The log's directory; created (with its parents) on first open unless read-only. A
    /// symbolic link is resolved when the store opens: pointing it elsewhere later does not
    /// change which files an open store uses.
    public var directory: URL
    public var schema: Schema?
    public var allowsSave: Bool
    /// For each model, the `Date` attribute that places its records in time. A fetch whose
    /// predicate bounds it reads only the segments and records in range. Models without one are
    /// placed by the time they were saved.
    public var timestamps: [LogTimestamp]
    /// A segment is sealed, and a new one started, when it reaches this many bytes.
    public var segmentSize: Int
    /// When a save's data reaches the disk: before the save returns (the default), or periodically.
    public var durability: LogDurability
    /// How much of the log (its records and their history, which are one) to keep; checked
    /// after every save, dropping whole segments. Named as every store configuration names its
    /// history retention.
    public var historyRetention: LogRetention
    /// When `true`, a damaged record in the middle of a segment is skipped instead of failing
    /// the read. Off by default: damage is reported.
    public var skipsDamagedRecords: Bool

    /// Makes a configuration; nothing is checked or created until the store opens. By default the
    /// store is named after `directory`'s last path component, holds every model type of the
    /// container, places records by their save time, seals segments at 8 MiB, flushes every save,
    /// keeps everything, is writable, and reports damaged records.
    public init(
        name: String? = nil, directory: URL, schema: Schema? = nil, timestamps: [LogTimestamp] = [],
        segmentSize: Int = 8 << 20, durability: LogDurability = .everySave, historyRetention: LogRetention = .unlimited,
        allowsSave: Bool = true, skipsDamagedRecords: Bool = false
    ) {
        self.name = name ?? directory.lastPathComponent
        self.directory = directory
        self.schema = schema
        self.timestamps = timestamps
        self.segmentSize = segmentSize
        self.durability = durability
        self.historyRetention = historyRetention
        self.allowsSave = allowsSave
        self.skipsDamagedRecords = skipsDamagedRecords
    }
}

/// Names the `Date` attribute that orders a model's records in time.
public struct LogTimestamp: Sendable, Hashable {
    /// The entity of the model whose records the attribute places in time.
    public let entityName: String
    /// `nil` when the key path is not a stored property; the store refuses to open then.
    public let attributeName: String?

    /// Names `keyPath` as `Model`'s timestamp attribute, by its stored name. A key path that is not a
    /// stored property of the model leaves ``attributeName`` `nil`, and the store refuses to open.
    public init<Model: PersistentModel>(_ keyPath: KeyPath<Model, Date>) {
        entityName = Model.entityName
        attributeName = Model.attributeName(of: keyPath)
    }
}

/// When a save's data reaches the disk.
public enum LogDurability: Sendable, Hashable {
    /// Every save is flushed (`fsync`) before it returns: nothing acknowledged is lost.
    case everySave
    /// Saves are flushed at most this often (seconds), and by ``LogStore/flush()``; a crash may
    /// lose the saves of the last interval, never part of one.
    case periodic(TimeInterval)
}

/// How much of the log to keep. Whole segments are dropped, oldest first, never the one being
/// written; history tokens that pointed into them expire.
public struct LogRetention: Sendable, Hashable {
    /// Drop a segment once its newest save is older than this (seconds).
    public var maximumAge: TimeInterval?
    /// Drop the oldest segments while the log is larger than this (bytes).
    public var maximumBytes: Int?

    /// Makes a retention from both limits; `nil` for no limit (the default keeps everything).
    public init(maximumAge: TimeInterval? = nil, maximumBytes: Int? = nil) {
        self.maximumAge = maximumAge
        self.maximumBytes = maximumBytes
    }

    /// Keep the whole log.
    public static let unlimited = LogRetention()
    /// Drop segments whose newest save is older than `seconds`.
    public static func age(_ seconds: TimeInterval) -> LogRetention { LogRetention(maximumAge: seconds) }
    /// Drop the oldest segments while the log is larger than `count` bytes.
    public static func bytes(_ count: Int) -> LogRetention { LogRetention(maximumBytes: count) }
}

extension LogStoreConfiguration: LocatableStoreConfiguration {
    public static let scheme = "log"
    public static let locationHelp = "log:DIRECTORY — an insert-only log (options: retention-age such as 30d, retention-bytes, segment-size, read-only=true)"

    public init(location: StoreLocation) throws {
        try location.allowOnly(["retention-age", "retention-bytes", "segment-size", "read-only"])
        let path = try location.requirePath("directory")
        self.init(directory: URL(filePath: path), segmentSize: try location.integer("segment-size") ?? 8 << 20,
                  historyRetention: LogRetention(maximumAge: try location.duration("retention-age"),
                                                 maximumBytes: try location.integer("retention-bytes")),
                  allowsSave: !(try location.boolean("read-only") ?? false))
    }
}

// MARK: Renamed

extension LogStoreConfiguration {
    /// The former name of ``historyRetention``, kept because the documentation showed it.
    @available(*, deprecated, renamed: "historyRetention")
    public var retention: LogRetention {
        get { historyRetention }
        set { historyRetention = newValue }
    }

    /// The former spelling of ``init(name:directory:schema:timestamps:segmentSize:durability:historyRetention:allowsSave:skipsDamagedRecords:)``,
    /// kept because the documentation showed it. `retention` has no default here, so that a call
    /// without it is not ambiguous.
    @available(*, deprecated, renamed: "init(name:directory:schema:timestamps:segmentSize:durability:historyRetention:allowsSave:skipsDamagedRecords:)")
    public init(
        name: String? = nil, directory: URL, schema: Schema? = nil, timestamps: [LogTimestamp] = [],
        segmentSize: Int = 8 << 20, durability: LogDurability = .everySave, retention: LogRetention,
        allowsSave: Bool = true, skipsDamagedRecords: Bool = false
    ) {
        self.init(name: name, directory: directory, schema: schema, timestamps: timestamps, segmentSize: segmentSize,
                  durability: durability, historyRetention: retention, allowsSave: allowsSave, skipsDamagedRecords: skipsDamagedRecords)
    }
}

import Foundation
import StoreProtocol
#if DEBUG && canImport(Synchronization)
import Synchronization
#endif

/// Fault injection for tests: a hook consulted before every file operation that changes
/// something, which can make it fail (`ENOSPC`, `EIO`, …) or, for a write, stop short after some
/// bytes, and observers that see every such operation. Not for production use; reach it with
/// `@_spi(FaultInjection) import StoreFiles`.
///
/// Compiled into debug builds only (SwiftPM defines `DEBUG` there; tests run in debug): a release
/// build has no hooks, and its file operations check nothing. Only the descriptions of the
/// operations (`Operation`, `Event`) exist in both, so that `FileIO` describes each
/// operation one way; in a release build nothing ever builds one.
@_spi(FaultInjection)
public enum FileFaults {
    public enum Operation: String, Sendable {
        case create, write, sync, rename, truncate, remove
    }

    /// A file operation that changes something, as `Observer`s see it, before and after it runs.
    /// Paths are as the store passed them (absolute in practice).
    public enum Event: Sendable, CustomStringConvertible {
        /// `open(path, O_CREAT…)`: creates the file unless it exists; `truncating` for `O_TRUNC`.
        case create(path: String, truncating: Bool)
        /// `bytes` written at `offset` of the file open as `path`.
        case write(path: String, offset: Int64, bytes: Data)
        /// `ftruncate` of `path` to `length` bytes.
        case truncate(path: String, length: Int64)
        /// `fsync` of the file `path`: its data (writes, truncates) reaches the disk.
        case syncFile(path: String)
        /// `fsync` of the directory `path`: its entries (creates, renames, removes) reach the disk.
        case syncDirectory(path: String)
        /// `rename(from, to)`, replacing `to` if it exists.
        case rename(from: String, to: String)
        /// `unlink(path)`.
        case remove(path: String)
        /// `mkdir(path)`: a new directory, whose entry in its parent is durable once the parent
        /// is flushed.
        case createDirectory(path: String)

        /// The path the operation is about (for a rename, its target).
        public var path: String {
            switch self {
            case .create(let path, _), .write(let path, _, _), .truncate(let path, _), .syncFile(let path),
                 .syncDirectory(let path), .remove(let path), .createDirectory(let path):
                return path
            case .rename(_, let to):
                return to
            }
        }

        public var description: String {
            switch self {
            case .create(let path, let truncating): return "create\(truncating ? " (truncating)" : "") \(path)"
            case .write(let path, let offset, let bytes): return "write \(bytes.count) bytes at \(offset) of \(path)"
            case .truncate(let path, let length): return "truncate \(path) to \(length)"
            case .syncFile(let path): return "fsync \(path)"
            case .syncDirectory(let path): return "fsync directory \(path)"
            case .rename(let from, let to): return "rename \(from) to \(to)"
            case .remove(let path): return "unlink \(path)"
            case .createDirectory(let path): return "mkdir \(path)"
            }
        }
    }
}

#if DEBUG
extension FileFaults {
    public struct Fault: Sendable {
        /// The `errno` the operation fails with.
        public var code: Int32
        /// For a write: how many bytes reach the file before it fails.
        public var bytesWritten: Int

        public init(code: Int32, bytesWritten: Int = 0) {
            self.code = code
            self.bytesWritten = bytesWritten
        }
    }

    public typealias Hook = @Sendable (Operation, String) -> Fault?

    private static let hooks = Locked<[UUID: Hook]>([:])
    #if canImport(Synchronization)
    /// How many hooks are installed, so that a file operation checks with one atomic load, not
    /// a lock and a copy of the hooks, when there are none (always, outside tests).
    private static let hookCount = Atomic<Int>(0)
    #endif

    /// Installs a hook until `remove(_:)`. Scope it by path: tests run in parallel, and every
    /// installed hook sees every operation.
    public static func install(_ hook: @escaping Hook) -> UUID {
        let key = UUID()
        hooks.withLock { $0[key] = hook }
        #if canImport(Synchronization)
        hookCount.add(1, ordering: .relaxed)
        #endif
        return key
    }

    public static func remove(_ key: UUID) {
        let removed = hooks.withLock { $0.removeValue(forKey: key) }
        #if canImport(Synchronization)
        if removed != nil { hookCount.subtract(1, ordering: .relaxed) }
        #endif
    }

    static func fault(_ operation: Operation, _ path: String) -> Fault? {
        #if canImport(Synchronization)
        guard hookCount.load(ordering: .relaxed) > 0 else { return nil }
        #endif
        let current = hooks.withLock { Array($0.values) }
        for hook in current { if let fault = hook(operation, path) { return fault } }
        return nil
    }
}

// MARK: Sabotage: a store that skips a flush

extension FileFaults {
    private static let parentSyncsSkipped = Locked<[UUID: String]>([:])

    /// Makes the stores skip the flush of a new directory's parent for directories created
    /// under `path`, until `remove(skippedParentSyncs:)`: the store the power-loss tests must
    /// catch (the log directory's entry lost with the power, and every save in it).
    public static func skipParentSyncs(under path: String) -> UUID {
        let key = UUID()
        parentSyncsSkipped.withLock { $0[key] = path }
        return key
    }

    /// Ends what `skipParentSyncs(under:)` began.
    public static func remove(skippedParentSyncs key: UUID) {
        parentSyncsSkipped.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// Whether a test asked to skip the flush of the parent of the new directory `path`.
    static func skipsParentSync(of path: String) -> Bool {
        parentSyncsSkipped.withLock { $0.values.contains { path.hasPrefix($0 + "/") } }
    }
}

// MARK: Observing every change to the files

extension FileFaults {
    /// Sees every file operation that changes something, for a test that models what a power
    /// loss would leave (it needs to know what each operation overwrote, and what was flushed).
    /// Called synchronously on the thread doing the operation; every installed observer sees
    /// every path, so scope by path.
    public protocol Observer: AnyObject, Sendable {
        /// Before `event` runs: return a fault to make it fail instead (nothing is done then,
        /// not even part of a write), or `nil` to let it run.
        func willPerform(_ event: Event) -> Fault?
        /// After `event` ran and succeeded.
        func didPerform(_ event: Event)
    }

    private static let observers = Locked<[UUID: any Observer]>([:])
    #if canImport(Synchronization)
    /// How many observers are installed: the one load a file operation pays when none is.
    private static let observerCount = Atomic<Int>(0)
    #endif

    /// Whether any observer is installed: a relaxed atomic load, so that call sites build an
    /// `Event` (and look up a write's offset) only when someone listens.
    @inline(__always)
    public static var isObserving: Bool {
        #if canImport(Synchronization)
        observerCount.load(ordering: .relaxed) > 0
        #else
        !observers.withLock { $0.isEmpty }
        #endif
    }

    /// Installs `observer` until `remove(_:)`.
    public static func install(observer: any Observer) -> UUID {
        let key = UUID()
        observers.withLock { $0[key] = observer }
        #if canImport(Synchronization)
        observerCount.add(1, ordering: .relaxed)
        #endif
        return key
    }

    /// Removes an observer `install(observer:)` installed.
    public static func remove(observer key: UUID) {
        let removed = observers.withLock { $0.removeValue(forKey: key) }
        #if canImport(Synchronization)
        if removed != nil { observerCount.subtract(1, ordering: .relaxed) }
        #endif
    }

    static func willPerform(_ event: Event) -> Fault? {
        let current = observers.withLock { Array($0.values) }
        for observer in current { if let fault = observer.willPerform(event) { return fault } }
        return nil
    }

    static func didPerform(_ event: Event) {
        let current = observers.withLock { Array($0.values) }
        for observer in current { observer.didPerform(event) }
    }
}
#endif

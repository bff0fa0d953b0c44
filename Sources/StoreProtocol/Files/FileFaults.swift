import Foundation

/// Fault injection for tests: a hook consulted before every file operation that changes
/// something, which can make it fail (`ENOSPC`, `EIO`, …) or, for a write, stop short after some
/// bytes. Not for production use; reach it with `@_spi(FaultInjection) import StoreProtocol`.
@_spi(FaultInjection)
public enum FileFaults {
    public enum Operation: String, Sendable {
        case create, write, sync, rename, truncate, remove
    }

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

    /// Installs a hook until ``remove(_:)``. Scope it by path: tests run in parallel, and every
    /// installed hook sees every operation.
    public static func install(_ hook: @escaping Hook) -> UUID {
        let key = UUID()
        hooks.withLock { $0[key] = hook }
        return key
    }

    public static func remove(_ key: UUID) {
        hooks.withLock { $0[key] = nil }
    }

    static func fault(_ operation: Operation, _ path: String) -> Fault? {
        let current = hooks.withLock { Array($0.values) }
        for hook in current { if let fault = hook(operation, path) { return fault } }
        return nil
    }
}

#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import Foundation
import NIOCore
import PostgresNIO
import StoreProtocol

extension PostgresStore: ExclusiveAccessProviding {
    /// Runs `body` while no other caller of this method on the same store (the same database
    /// and namespace), in this or any process on any machine, runs: what a replicator needs to
    /// read the shared store and then save into it without another replica's save between.
    ///
    /// The access is a session-level advisory lock held by a connection of its own (kept open
    /// between calls), so that waiting for it never blocks the store's other callers. It ends
    /// when `body` returns or throws, when that connection dies (`pg_terminate_backend`, a
    /// server restart) or when the process dies: the server releases it then.
    ///
    /// **A save inside `body` commits only under the access.** Should the lock's connection die
    /// while `body` runs, another caller may take the access at once; a save that `body` makes
    /// afterwards would then interleave with that caller's work. So every save of this store
    /// made inside `body` (by the task or thread that runs it) checks, in its own transaction
    /// and under the store's write lock, that the lock is still held, and fails with `.ioFailure`
    /// when it is not; and a caller that takes the access first waits for the saves in flight
    /// (the store's write lock) to end. A save that commits inside `body` was therefore made
    /// while this caller held the access.
    ///
    /// A nested call for the same store inside `body` runs its body at once (the access is
    /// held already). Cost: one round trip to take the lock (after waiting for another
    /// holder), one to wait for the saves in flight, one to release; one more statement,
    /// sent without waiting, in each save inside `body`.
    ///
    /// - Throws: what `body` throws; `DataStoreError` `.ioFailure` when the server cannot be
    ///   reached; `CancellationError` when the task is cancelled while waiting for another
    ///   holder (nothing ran then).
    public func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result {
        if ExclusiveAccessHold.held[ObjectIdentifier(self)] != nil { return try body() }
        return try exclusiveAccess.holding(key: "PostgresStore.exclusive:" + configuration.namespace, namespace: namespace) { holder in
            var held = ExclusiveAccessHold.held
            held[ObjectIdentifier(self)] = holder
            return try ExclusiveAccessHold.$held.withValue(held, operation: body)
        }
    }

    /// When the running task or thread is inside ``withExclusiveAccess(_:)`` for this store,
    /// sends (without waiting) the statement that tells whether its lock is still held;
    /// ``requireExclusiveAccess(_:_:)`` reads the answer. Sent after the store's write lock.
    func sendExclusiveAccessCheck(_ sql: SQLConnection) -> SQLConnection.Sent? {
        guard let holder = ExclusiveAccessHold.held[ObjectIdentifier(self)] else { return nil }
        var binds = PostgresBindings()
        binds.append(holder.processID)
        binds.append(holder.classID)
        binds.append(holder.objectID)
        return sql.send("""
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1 \
            AND classid::bigint = $2 AND objid::bigint = $3 AND objsubid = 1)
            """, binds)
    }

    /// Fails unless the check ``sendExclusiveAccessCheck(_:)`` sent found the lock held.
    func requireExclusiveAccess(_ check: SQLConnection.Sent?, _ sql: SQLConnection) throws {
        guard let check else { return }
        guard try sql.wait(check).first?.decode(Bool.self) == true else {
            throw DataStoreError(.ioFailure,
                "The exclusive access to \(configuration.name) ended while this save was being made (its connection to the server closed), "
                + "so another process may be changing the store: nothing was saved. Take the access again and redo the work.")
        }
    }
}

/// The advisory lock a store's callers of `withExclusiveAccess` hold in the server's lock table.
struct ExclusiveAccessHolder: Sendable {
    /// The backend process of the connection that holds the lock.
    var processID: Int32
    /// The lock's 64-bit key as `pg_locks` shows it: the high and low 32 bits.
    var classID: Int64
    var objectID: Int64
}

/// The exclusive accesses the running task or thread holds, by store.
enum ExclusiveAccessHold {
    @TaskLocal static var held: [ObjectIdentifier: ExclusiveAccessHolder] = [:]
}

/// The connection that takes a store's exclusive access, and the in-process turn-taking in
/// front of it (one session may take a session-level advisory lock many times: two callers in
/// one process would not exclude each other on the server).
final class ExclusiveAccessConnection: @unchecked Sendable {
    // @unchecked: `connection` is only touched while `turn` is held.
    private let turn = NSLock()
    private var connection: (PostgresConnection, SQLConnection, processID: Int32)?
    private let session: PostgresSession

    init(session: PostgresSession) { self.session = session }

    deinit { connection.map { Self.close($0.0) } }

    /// How long one wait for the lock lasts on the server before it is asked again (so that a
    /// wait never meets the connection's answer timeout, and cancellation is seen).
    static let lockWait = "5s"

    /// Takes the lock of `key`, waits for the saves in flight of the store in `namespace` to
    /// end, runs `body` with the holder, and releases the lock.
    func holding<Result>(key: String, namespace: String, _ body: (ExclusiveAccessHolder) throws -> Result) throws -> Result {
        turn.lock()
        defer { turn.unlock() }
        let (sql, processID) = try connected()
        var keyBinds = PostgresBindings()
        keyBinds.append(key)
        let lockKey: Int64
        do {
            lockKey = try sql.query("SELECT hashtextextended($1, 0)", keyBinds).first?.decode(Int64.self) ?? 0
            var lockBinds = PostgresBindings()
            lockBinds.append(lockKey)
            while true {
                do {
                    try sql.execute("SELECT pg_advisory_lock($1)", lockBinds)
                    break
                } catch let error as DataStoreError where error.underlyingError.flatMap(PostgresErrors.sqlState) == "55P03" {
                    // lock_timeout: another holder still has it; ask again.
                    try Task.checkCancellation()
                }
            }
            // A save made under an access lost with its connection may still be in flight: it
            // holds the store's write lock, and found the access held or will fail. Wait for it.
            try sql.execute("SELECT 1 FROM \(namespace)._store WHERE id = 1 FOR SHARE")
        } catch {
            // The lock may be held (the wait for saves failed): closing the connection releases it.
            discardConnection()
            throw error
        }
        let holder = ExclusiveAccessHolder(processID: processID, classID: Int64(UInt32(truncatingIfNeeded: lockKey >> 32)),
                                           objectID: Int64(UInt32(truncatingIfNeeded: lockKey)))
        defer {
            var binds = PostgresBindings()
            binds.append(lockKey)
            // A failed release (the connection died) released the lock on the server already;
            // a connection in any other doubt is closed, which releases it too.
            if (try? sql.execute("SELECT pg_advisory_unlock($1)", binds)) == nil { discardConnection() }
        }
        return try body(holder)
    }

    /// The connection, connecting (and reading its backend process) when there is none or it closed.
    private func connected() throws -> (SQLConnection, Int32) {
        if let connection, !connection.0.isClosed { return (connection.1, connection.processID) }
        discardConnection()
        let (opened, sql) = try session.openConnection()
        do {
            try sql.execute("SET lock_timeout = '\(Self.lockWait)'")
            let processID = try sql.query("SELECT pg_backend_pid()").first?.decode(Int32.self) ?? 0
            connection = (opened, sql, processID)
            return (sql, processID)
        } catch {
            Self.close(opened)
            throw error
        }
    }

    /// Closes the connection (which releases any lock it holds); the next call connects again.
    private func discardConnection() {
        connection.map { Self.close($0.0) }
        connection = nil
    }

    private static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
#endif

#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import NIOCore
import PostgresNIO
import StoreProtocol

/// Calls a handler after every save of a store, by any process: `LISTEN` on the store's channel,
/// to which every save sends `NOTIFY` inside its transaction (so the notification arrives only
/// once the save is committed, and never for a save that rolled back).
///
/// The observer holds a connection of its own until ``cancel()`` (or until it is released). Through
/// `SaveNotifying`, `ModelContainer.historyUpdates` uses it to wake on saves instead of polling.
public final class PostgresSaveObserver: SaveObservation {
    private let connection: PostgresConnection
    private let context: PostgresListenContext

    init(connection: PostgresConnection, context: PostgresListenContext) {
        self.connection = connection
        self.context = context
    }

    /// A future that completes when the observer's connection closes (a server restart, or
    /// ``cancel()``): no notification arrives after it.
    public var closed: EventLoopFuture<Void> { connection.closeFuture }

    /// Stops observing and closes the connection.
    public func cancel() {
        context.stop()
        let closing: EventLoopFuture<Void> = connection.close()
        let connection = connection
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    deinit { cancel() }
}

extension PostgresStore: SaveNotifying {
    /// Calls `handler` (on a SwiftNIO thread: it must return promptly and must not call the
    /// store) after each committed save of this store, by this or any other process.
    /// - Throws: `DataStoreError` `.ioFailure` when the server cannot be reached.
    public func observeSaves(_ handler: @escaping @Sendable () -> Void) throws -> PostgresSaveObserver {
        let (connection, sql) = try session.openConnection()
        let context = connection.addListener(channel: notificationChannel) { _, _ in handler() }
        do {
            try sql.execute("LISTEN \(SQLName.quote(notificationChannel))")
        } catch {
            context.stop()
            let closing: EventLoopFuture<Void> = connection.close()
            closing.whenComplete { _ in withExtendedLifetime(connection) {} }
            throw error
        }
        return PostgresSaveObserver(connection: connection, context: context)
    }

    /// New transactions as they are saved, by this process or another, after `token` (from now
    /// when `nil`): woken by `LISTEN`/`NOTIFY`, not by polling. Each wake-up reads the history
    /// after the last transaction yielded, so none is missed or repeated (numbers follow commit
    /// order, see ``save(_:)``).
    ///
    /// The stream ends with an error when history cannot be read (an expired token) or the
    /// listening connection closes (a server restart: start again from the last token);
    /// cancelling the consuming task ends it.
    public func historyUpdates(after token: DefaultHistoryToken? = nil) -> AsyncThrowingStream<DefaultHistoryTransaction, any Error> {
        AsyncThrowingStream { continuation in
            let (wakeups, wake) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let observer: PostgresSaveObserver
            do {
                observer = try observeSaves { wake.yield(true) }
            } catch {
                continuation.finish(throwing: error)
                return
            }
            observer.closed.whenComplete { _ in wake.yield(false) }
            let task = Task {
                do {
                    var position = try token ?? currentHistoryToken()
                    wake.yield(true)
                    for await open in wakeups {
                        let new = try fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: position))
                        for transaction in new { continuation.yield(transaction) }
                        if let last = new.last { position = last.token }
                        guard open else {
                            throw DataStoreError(.ioFailure, "The connection that listened for saves of \(configuration.name) closed; start again from the last token.")
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in
                task.cancel()
                wake.finish()
                observer.cancel()
            }
        }
    }
}
#endif

import StoreProtocol

/// What a file-backed store knows of its files, in memory, behind two locks always taken in one
/// order: this process's lock on the value first, then the lock on the files that other
/// processes take (shared to read, exclusive to write). One instance's reads and writes are
/// serialized by the first; processes and other instances by the second.
///
/// `JSONStore` and `LogStore` read and write through it; each says how its state catches up
/// with the files.
package final class FileBackedState<State: Sendable>: Sendable {
    private let state: Locked<State>
    /// The lock on the store's files.
    package let fileLock: FileLock

    package init(_ state: State, fileLock: FileLock) {
        self.state = Locked(state)
        self.fileLock = fileLock
    }

    /// Runs `body` on a state that has read every other process's saves. When `isCurrent` says
    /// the state may be behind the files, `catchUp` brings it up to date under the shared file
    /// lock, and `body` runs still holding it; otherwise no file lock is taken.
    package func read<T>(
        isCurrent: (borrowing State) throws -> Bool = { _ in false },
        catchUp: (inout State) throws -> Void,
        _ body: (borrowing State) throws -> T
    ) throws -> T {
        try state.withLock { state in
            if try isCurrent(state) { return try body(state) }
            return try fileLock.withLock(exclusive: false) {
                try catchUp(&state)
                return try body(state)
            }
        }
    }

    /// Runs `body` on an up-to-date state under the exclusive file lock: `beforeLocking` first
    /// (checks that must come before the lock file is opened), then `catchUp` under the lock.
    package func write<T>(
        beforeLocking: (borrowing State) throws -> Void = { _ in },
        catchUp: (inout State) throws -> Void,
        _ body: (inout State) throws -> T
    ) throws -> T {
        try state.withLock { state in
            try beforeLocking(state)
            return try fileLock.withLock(exclusive: true) {
                try catchUp(&state)
                return try body(&state)
            }
        }
    }
}

/// A store that can give one caller at a time, across processes, the right to read and then
/// save: what a replicator needs so that two replicas applying changes to one shared store cannot
/// interleave a read and a save (a lost update of a per-attribute clock).
///
/// The access ends when `body` returns or throws, or when the process that holds it dies.
///
/// **Nesting.** A call for the same store instance made inside `body`, by the task or thread that
/// runs it, runs its own body at once (the access is held already) and leaves the access held
/// when it returns. A call on *another* instance of the same store (another container on the
/// same configuration) is another caller: made inside `body`, it waits for this one, which never
/// ends. The conformance suite's `exclusiveAccess` cases check these rules (StoreConformance).
public protocol ExclusiveAccessProviding: AnyObject, Sendable {
    /// Runs `body` while no other caller of this method on the same store, in any process, runs.
    ///
    /// Saves the store makes inside `body` are read back inside it and afterwards, by every
    /// container on the store.
    ///
    /// - Throws: what `body` throws (the access is released first), or the store's error when
    ///   the access cannot be taken.
    func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result
}

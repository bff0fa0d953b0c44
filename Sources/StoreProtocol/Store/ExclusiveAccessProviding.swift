/// A store that can give one caller at a time, across processes, the right to read and then
/// save: what a replicator needs so that two replicas applying changes to one shared store cannot
/// interleave a read and a save (a lost update of a per-attribute clock).
///
/// The access ends when `body` returns or throws, or when the process that holds it dies.
public protocol ExclusiveAccessProviding: AnyObject, Sendable {
    /// Runs `body` while no other caller of this method on the same store, in any process, runs.
    ///
    /// - Throws: what `body` throws, or the store's error when the access cannot be taken.
    func withExclusiveAccess<Result>(_ body: () throws -> Result) throws -> Result
}

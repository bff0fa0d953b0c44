import StoreProtocol

/// Which stores' exclusive access (`ExclusiveAccessProviding`) the running task or thread holds:
/// what lets a nested call for a store whose access is held already run its body at once, as the
/// protocol says, instead of waiting for itself.
public enum ExclusiveAccessNesting {
    @TaskLocal private static var held: Set<ObjectIdentifier> = []

    /// Runs `body` at once when the running task or thread holds the access `key` names already
    /// (a nested call); otherwise calls `take` (which takes the access, runs the closure it is
    /// given, and releases the access) with `body` marked as holding `key`.
    ///
    /// - Parameters:
    ///   - key: the object that stands for the access: the store instance, or the lock that
    ///     every instance on the same data shares.
    ///   - take: takes the access, runs the closure it is given, then releases the access.
    ///   - body: the work to do while holding the access.
    /// - Throws: what `take` or `body` throws.
    public static func withAccess<Result>(
        _ key: AnyObject, take: (() throws -> Result) throws -> Result, _ body: () throws -> Result
    ) throws -> Result {
        let id = ObjectIdentifier(key)
        if held.contains(id) { return try body() }
        let holding = held.union([id])
        // `take` runs the closure before it returns: `body` does not escape.
        return try withoutActuallyEscaping(body) { body in try take { try $held.withValue(holding, operation: body) } }
    }
}

/// Type names, printed once per type: `String(describing:)` demangles the type's name on every
/// call (about a microsecond), and ``PersistentModel/entityName`` is read on every identifier.
enum TypeNames {
    private static let cache = Locked<[ObjectIdentifier: String]>([:])

    static func name(of type: Any.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = cache.withLock({ $0[key] }) { return name }
        let name = String(describing: type)
        cache.withLock { $0[key] = name }
        return name
    }
}

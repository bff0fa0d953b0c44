/// `value` as a `U`, for a generic `T` the caller has checked is `U` (`T.self == U.self`).
///
/// The coders use it after a metatype comparison: `value as! U` would ask the runtime to cast
/// again, once per attribute of every model encoded or decoded.
@inline(__always)
func reinterpret<T, U>(_ value: T, as _: U.Type) -> U {
    precondition(T.self == U.self, "reinterpret(_:as:) needs T and U to be the same type")
    return withUnsafePointer(to: value) { $0.withMemoryRebound(to: U.self, capacity: 1) { $0.pointee } }
}

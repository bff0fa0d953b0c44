/// Quoting of SQL identifiers: names are never bound, so every one is quoted (`"` doubled).
enum SQLName {
    /// `name` as a quoted identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

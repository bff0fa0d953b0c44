#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
/// Quoting for SQL text: every name (namespace, table, column, channel) and every constant that
/// is not bound goes into a statement through here, never interpolated as it is.
///
/// Names come from the app (entity and attribute names) and from configuration (`?schema=`,
/// which a configuration file or an environment variable may set), so any character can be in
/// one: quotes, double quotes, backslashes, semicolons, `$$`. `SQLNameTests` runs a store whose
/// names hold all of them.
enum SQLName {
    /// `name` as a quoted identifier: `"` doubled, inside `"…"`, so that it is one name whatever
    /// it holds. PostgreSQL refuses a NUL in any text; names holding one are refused before they
    /// reach a statement (``holdsNoNUL(_:)``).
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a string constant: an escape string (`E'…'`) with `\` and `'` doubled, which
    /// reads the same whatever the server's `standard_conforming_strings` is.
    static func literal(_ text: String) -> String {
        "E'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A table's or sequence's qualified, quoted name (``quote(_:)``) as a `regclass` constant,
    /// for functions that take one (`nextval`, `pg_index.indrelid`).
    static func regclass(_ qualifiedName: String) -> String {
        literal(qualifiedName) + "::regclass"
    }

    /// Whether a name can be sent: PostgreSQL's text, identifiers included, holds no NUL.
    static func holdsNoNUL(_ name: String) -> Bool {
        !name.utf8.contains(0)
    }
}
#endif

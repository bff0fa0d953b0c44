#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import NIOCore
import PostgresNIO

/// The statements of the hot paths (a save's, a fetch's, a history read's), prepared once per
/// connection and executed by name after that.
///
/// **Why.** An unnamed statement (what `PostgresConnection.query` sends) is parsed, analysed
/// and planned by the server at every call. For the store's statements, which carry their
/// checks and history bookkeeping as subqueries and CTEs, that was most of the server's time:
/// measured with pgbench on the same statements, a 1-record save cost the server about 0.8 ms
/// of CPU unnamed and 0.3 ms prepared (the hand-written postgres-nio save, unnamed: 0.3–0.5 ms).
/// A prepared statement is parsed once; PostgreSQL's plan cache then plans it per call with the
/// call's values for its first five calls and keeps a generic plan when that is not worse.
///
/// **How.** postgres-nio 1.33's `PostgresPreparedStatement` needs the SQL as a static property
/// and an `async` caller; the store's SQL depends on the tables and its callers are
/// synchronous, so it uses postgres-nio's `prepare(query:)` (`Parse`/`Describe` once, then
/// `Bind`/`Execute` with the values as `PostgresData`). The server infers the parameters' types
/// from the text, so every parameter of a prepared statement is written with a cast or in a
/// place that fixes its type (`$1::double precision`, `_pk = $1`). Its rows come back in
/// binary, but their description (from `Describe` of the statement) says text: a cell of a
/// prepared statement is read through ``PostgresRow/binaryCells`` (every row of this store's
/// connections is binary: postgres-nio asks for binary results for unnamed statements too).
///
/// **Bounds.** At most ``capacity`` statements per connection (fetches of many predicate
/// shapes run unnamed beyond it); a connection's statements go with it when it closes. A
/// statement the server no longer accepts as prepared (a migration dropped or retyped a column
/// it reads, SQLSTATE 0A000, 42703, 42P01, 26000) is forgotten and prepared again next time.
final class PreparedStatements: @unchecked Sendable {
    // @unchecked: touched only by the session's callers while they hold its lock (one per connection).
    private var statements: [String: PreparedQuery] = [:]
    /// How many statements one connection keeps prepared.
    static let capacity = 128
    /// Off: every statement runs unnamed (the reference the tests compare with).
    var enabled = true

    /// The prepared statement for `sql`, preparing it (one round trip, waited for) when new;
    /// `nil` when the cache is full or off.
    func statement(_ sql: String, on connection: PostgresConnection, server: String) throws -> PreparedQuery? {
        guard enabled else { return nil }
        if let prepared = statements[sql] { return prepared }
        guard statements.count < Self.capacity else { return nil }
        do {
            let prepared = try SQLConnection.wait(for: connection.prepare(query: sql), closing: connection, server: server)
            statements[sql] = prepared
            return prepared
        } catch where PostgresErrors.sqlState(error) == "25P02" {
            // A statement sent before failed, and the transaction refuses everything until its
            // end: run this one unnamed, so that the caller, waiting for the answers in order,
            // meets that statement's error first, not this refusal.
            return nil
        } catch where PostgresErrors.sqlState(error) == "42P18" {
            // A parameter whose type the text does not say (an unnamed statement is told the
            // types): run it unnamed. Only fetches, outside a transaction, can meet this.
            return nil
        }
    }

    /// Forgets every statement (after a migration changed the tables they read).
    func removeAll() {
        statements = [:]
    }

    /// Forgets `sql`'s statement after a failure that says its preparation no longer holds.
    func forget(_ sql: String, after error: any Error) {
        guard let state = PostgresErrors.sqlState(error), ["0A000", "42703", "42P01", "26000"].contains(state) else { return }
        statements[sql] = nil
    }

    /// How many statements are prepared (for tests).
    var count: Int { statements.count }

    /// The texts of the statements prepared (for tests).
    var texts: [String] { Array(statements.keys) }
}

/// Bound parameters kept as `PostgresData`, so that one statement can run prepared (which takes
/// `PostgresData`) or unnamed (``bindings``) with the same values.
struct StatementBinds: RowBindings {
    private(set) var values: [PostgresData] = []

    init() {}

    var count: Int { values.count }

    mutating func appendNull() { values.append(PostgresData(type: .null)) }

    mutating func append<Value: PostgresDynamicTypeEncodable>(_ value: Value) {
        var buffer = ByteBuffer()
        value.encode(into: &buffer, context: .default)
        values.append(PostgresData(type: value.psqlType, formatCode: value.psqlFormat, value: buffer))
    }

    mutating func append<Value: PostgresDynamicTypeEncodable>(_ value: Value?) {
        if let value { append(value) } else { appendNull() }
    }

    mutating func append(contentsOf other: StatementBinds) { values += other.values }

    mutating func bindNull() { appendNull() }
    mutating func bind<Value: PostgresNonThrowingEncodable>(_ value: Value) { append(value) }

    /// The same values for an unnamed statement.
    var bindings: PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { bindings.append(value) }
        return bindings
    }
}

extension PostgresRow {
    /// The row's cells as binary, which they are on this store's connections whatever the row's
    /// description says (see ``PreparedStatements``).
    var binaryCells: [PostgresCell] {
        var cells: [PostgresCell] = []
        cells.reserveCapacity(count)
        for var cell in self {
            cell.format = .binary
            cells.append(cell)
        }
        return cells
    }
}
#endif

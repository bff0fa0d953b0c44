#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import NIOCore
import PostgresNIO

/// Where ``EntityTable/bindRow(_:into:)`` puts a row's values: the parameters of one statement
/// (`PostgresBindings`), or one element of each column's array (``ColumnArrays``).
protocol RowBindings {
    mutating func bindNull()
    mutating func bind<Value: PostgresNonThrowingEncodable>(_ value: Value)
}

extension PostgresBindings: RowBindings {
    mutating func bindNull() { appendNull() }
    mutating func bind<Value: PostgresNonThrowingEncodable>(_ value: Value) { append(value) }
}

/// Many rows as one array parameter per column, for `INSERT … SELECT … FROM unnest($1, $2, …)`
/// and `UPDATE … FROM unnest(…)`: one statement of a few parameters for any number of rows,
/// where a multi-row `VALUES` list costs PostgreSQL a parse of thousands of parameters.
///
/// Rows are bound column after column (``bind(_:)`` cycles through the columns), in the order
/// of the element types given.
struct ColumnArrays: RowBindings {
    private(set) var columns: [ColumnArray]
    private var next = 0

    init(elementTypes: [PostgresDataType]) {
        columns = elementTypes.map { ColumnArray(elementType: $0) }
    }

    mutating func bindNull() {
        columns[next].appendNull()
        next = (next + 1) % columns.count
    }

    mutating func bind<Value: PostgresNonThrowingEncodable>(_ value: Value) {
        columns[next].append(value)
        next = (next + 1) % columns.count
    }

    /// The arrays as parameters `$1…$n` of a prepared statement.
    var statementBinds: StatementBinds {
        var binds = StatementBinds()
        for column in columns { binds.append(column) }
        return binds
    }

    /// The arrays as parameters `$1…$n`.
    var bindings: PostgresBindings {
        var bindings = PostgresBindings(capacity: columns.count)
        for column in columns { bindings.append(column) }
        return bindings
    }
}

/// One column's values as a one-dimensional PostgreSQL array in binary format, `NULL` elements
/// allowed (postgres-nio's own `Array` encoding has no optional elements).
///
/// The format (PostgreSQL's `array_send`): the number of dimensions, a flag saying whether
/// `NULL`s occur, the element type, then per dimension its length and lower bound (1), then each
/// element as a length (-1 for `NULL`) and its bytes, each encoded by postgres-nio's own
/// encoding of the element type. `ColumnStorageTests` reads rows written this way back exactly.
struct ColumnArray: PostgresDynamicTypeEncodable {
    let elementType: PostgresDataType
    private var elements = ByteBuffer()
    private var count: Int32 = 0
    private var hasNull = false

    init(elementType: PostgresDataType) {
        self.elementType = elementType
    }

    var psqlType: PostgresDataType {
        switch elementType {
        case .int8: .int8Array
        case .bool: .boolArray
        case .float8: .float8Array
        case .uuid: .uuidArray
        default: .textArray
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    mutating func appendNull() {
        elements.writeInteger(-1, as: Int32.self)
        count += 1
        hasNull = true
    }

    mutating func append<Value: PostgresNonThrowingEncodable>(_ value: Value) {
        let lengthIndex = elements.writerIndex
        elements.writeInteger(0, as: Int32.self)
        let start = elements.writerIndex
        value.encode(into: &elements, context: .default)
        elements.setInteger(Int32(elements.writerIndex - start), at: lengthIndex)
        count += 1
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)   // dimensions
        buffer.writeInteger(hasNull ? 1 : 0, as: Int32.self)
        buffer.writeInteger(elementType.rawValue)
        guard count > 0 else { return }
        buffer.writeInteger(count)                               // length of the dimension
        buffer.writeInteger(1, as: Int32.self)                   // its lower bound
        var elements = elements
        buffer.writeBuffer(&elements)
    }
}
#endif

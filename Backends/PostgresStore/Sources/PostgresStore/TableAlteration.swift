#if PostgreSQL  // the package trait that builds this module (Package.swift); without it the module is empty
import PostgresNIO
import StoreProtocol

/// One entity's lightweight changes said as `ALTER TABLE`, when they can be: the table keeps its
/// rows and only the changed columns are touched.
///
/// Made from the migration's changes (in order, following the entity across a rename), it checks
/// that the altered table will have exactly the new layout's columns and unique constraints;
/// `nil` otherwise (the migration then rebuilds the table). What is not said in place: a unique
/// constraint added or removed (the `_uN` columns hold values computed in Swift), a default
/// value that no column holds (it would go to every row's `_rest`), a rename onto a name that
/// already has a column, a value moving between a column and `_rest`.
struct TableAlteration {
    let old: EntityTable
    let new: EntityTable
    /// What the statements do, in order.
    private enum Step {
        case renameColumn(from: String, to: String)
        case dropColumn(String)
        case addColumn(EntityTable.Column, defaultValue: SnapshotValue?)
    }
    private let steps: [Step]
    private let indexesChange: Bool

    init?(_ changes: [SchemaChange], from old: EntityTable, to new: EntityTable) {
        self.old = old
        self.new = new
        var entity = old.entityName
        var kinds = Dictionary(uniqueKeysWithValues: old.columns.map { ($0.name, $0.kind) })
        var steps: [Step] = []
        // Old attribute name -> its name now, to compare unique constraints and indexes.
        var names = Dictionary(uniqueKeysWithValues: old.columns.map { ($0.name, $0.name) })
        for change in changes {
            switch change {
            case let .renameEntity(from, to) where from == entity:
                entity = to
            case let .addAttribute(changed, name, defaultValue) where changed == entity:
                guard kinds[name] == nil else { return nil }
                guard let column = new.columnsByAttribute[name] else {
                    if defaultValue != nil { return nil }   // the default would go to every row's _rest
                    continue
                }
                if let defaultValue, !column.holds(defaultValue) { return nil }
                kinds[name] = column.kind
                steps.append(.addColumn(column, defaultValue: defaultValue))
            case let .removeAttribute(changed, name) where changed == entity:
                if kinds.removeValue(forKey: name) != nil { steps.append(.dropColumn(name)) }
                names = names.filter { $0.value != name }
            case let .renameAttribute(changed, from, to) where changed == entity:
                guard kinds[to] == nil, let kind = kinds.removeValue(forKey: from) else {
                    // From a name without a column: its values are in _rest, and move only if
                    // the new name has no column either.
                    if kinds[to] != nil || EntityTable.canBeColumn(to) { return nil }
                    continue
                }
                guard EntityTable.canBeColumn(to) else { return nil }
                kinds[to] = kind
                steps.append(.renameColumn(from: from, to: to))
                for (original, current) in names where current == from { names[original] = to }
            default:
                continue
            }
        }
        let expected = Dictionary(uniqueKeysWithValues: new.columns.map { ($0.name, $0.kind) })
        guard entity == new.entityName, kinds == expected else { return nil }
        let renamed = old.uniqueConstraints.map { $0.map { names[$0] ?? "" } }
        guard renamed == new.uniqueConstraints else { return nil }
        // A `String` column that becomes indexed keeps its longest strings in `_rest` from now on
        // (``EntityTable/Column/longestIndexedString``): a move between a column and `_rest`.
        let wasIndexed = Set(old.indexedColumns.map { names[$0.name] ?? "" })
        guard !new.indexedColumns.contains(where: { $0.kind == .string && !wasIndexed.contains($0.name) }) else { return nil }
        self.steps = steps
        indexesChange = old.indexedColumns.map { names[$0.name] ?? "" } != new.indexedColumns.map(\.name)
    }

    /// The statements, in order: the table's rename, its columns' changes, a default set on
    /// every row (and `_exact` cleared where the default is not what a query reads), the indexes
    /// made again when they change.
    /// - Throws: `DataStoreError` `.unsupportedValue` for a default the JSON codec cannot hold.
    func statements() throws -> [(String, PostgresBindings)] {
        var statements: [(String, PostgresBindings)] = []
        func add(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) { statements.append((sql, binds)) }
        if old.entityName != new.entityName {
            add("ALTER TABLE \(old.qualifiedName) RENAME TO \(SQLName.quote(new.entityName))")
        }
        let table = new.qualifiedName
        for step in steps {
            switch step {
            case let .renameColumn(from, to):
                add("ALTER TABLE \(table) RENAME COLUMN \(SQLName.quote(from)) TO \(SQLName.quote(to))")
            case .dropColumn(let name):
                add("ALTER TABLE \(table) DROP COLUMN \(SQLName.quote(name))")
            case let .addColumn(column, defaultValue):
                add("ALTER TABLE \(table) ADD COLUMN \(column.sqlName) \(column.kind.sqlType)")
                // Every stored row now has the default (or no value): exact when a query reads
                // that as the row holds it.
                var exact = true
                if let attribute = column.attribute {
                    if let defaultValue { exact = EntityTable.queryReadsExactly(defaultValue, as: attribute) } else { exact = attribute.isOptional }
                }
                if let defaultValue {
                    var binds = PostgresBindings()
                    try column.bind(defaultValue, into: &binds)
                    add("UPDATE \(table) SET \(column.sqlName) = $1\(exact ? "" : ", _exact = false")", binds)
                } else if !exact {
                    add("UPDATE \(table) SET _exact = false")
                }
            }
        }
        if indexesChange {
            // Every index but the primary key's and the unique columns' (exclusion constraints), made again.
            // DO takes its code as a string constant: quoted as one, so that a `$$` or `'` in the
            // table's name cannot end it.
            add("DO " + SQLName.literal("""
                DECLARE i regclass; BEGIN FOR i IN SELECT indexrelid::regclass FROM pg_index \
                WHERE indrelid = \(SQLName.regclass(table)) AND NOT indisunique AND NOT indisprimary AND NOT indisexclusion \
                LOOP EXECUTE 'DROP INDEX ' || i; END LOOP; END
                """))
            for statement in new.indexStatements() { add(statement) }
        }
        return statements
    }
}
#endif

import Foundation
import StoreProtocol

/// One query attribute's values for every slot of an entity's rows, as a query reads them
/// (``QueryAttribute/value(in:)``), in one contiguous typed array: what a scan compares
/// without a dictionary lookup or a `SnapshotValue` per row.
///
/// Integers are kept as `Int64`, `Double` and `Float` as `Double`, `Date` as its time interval
/// since the reference date (the `Double` its `==` and `<` compare), strings, UUIDs and `Bool`s
/// as themselves. A slot's ``Cell`` says whether its value is in the typed array, is `nil`, is a
/// canonical value that array cannot hold (an integer above `Int64.max`, kept aside), does not
/// read as the attribute's type, or is an empty slot (a deleted row before compaction).
///
/// `EntityRows` keeps it in step with its slots: every row written, removed, restored or moved
/// by compaction is written here too.
struct AttributeColumn: Sendable {
    /// What a slot holds.
    enum Cell: UInt8, Sendable {
        /// The canonical value is in the typed array.
        case value
        /// `nil` (``SnapshotValue/null``).
        case null
        /// A canonical value the typed array cannot hold, in `others`.
        case other
        /// The stored value does not read as the attribute's type: only the model can decide.
        case unreadable
        /// No row.
        case empty
    }

    /// Which typed array holds the values.
    enum Storage: Sendable {
        case integers, reals, dates, strings, uuids, bools
    }

    let attribute: QueryAttribute
    let storage: Storage
    private(set) var cells: [Cell] = []
    /// The values of an integer attribute (canonical ``SnapshotValue/int(_:)``).
    private(set) var integers: [Int64] = []
    /// The values of a `Double` or `Float` attribute, or a `Date`'s `timeIntervalSinceReferenceDate`.
    private(set) var reals: [Double] = []
    private(set) var strings: [String] = []
    private(set) var uuids: [UUID] = []
    private(set) var bools: [Bool] = []
    /// Canonical values the typed array cannot hold, by slot (``Cell/other``).
    private var others: [Int: SnapshotValue] = [:]

    init(_ attribute: QueryAttribute) {
        self.attribute = attribute
        switch attribute.type {
        case .double, .float: storage = .reals
        case .date: storage = .dates
        case .string: storage = .strings
        case .uuid: storage = .uuids
        case .bool: storage = .bools
        case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64: storage = .integers
        }
    }

    var count: Int { cells.count }

    /// The canonical value in `slot`, as ``QueryAttribute/value(in:)`` gives it for the row;
    /// `nil` when it does not read as the attribute's type, or the slot is empty.
    /// - Complexity: O(1).
    func value(at slot: Int) -> SnapshotValue? {
        switch cells[slot] {
        case .value:
            switch storage {
            case .integers: return .int(integers[slot])
            case .reals: return .double(reals[slot])
            case .dates: return .date(Date(timeIntervalSinceReferenceDate: reals[slot]))
            case .strings: return .string(strings[slot])
            case .uuids: return .uuid(uuids[slot])
            case .bools: return .bool(bools[slot])
            }
        case .null: return .null
        case .other: return others[slot]
        case .unreadable, .empty: return nil
        }
    }

    /// The columns of an entity's query attributes, in the order `EntityRows` keeps them (by name).
    static func columns(of entity: Schema.Entity) -> [AttributeColumn] {
        entity.queryAttributes.values.sorted { $0.name < $1.name }.map(AttributeColumn.init)
    }

    /// Writes a row's value into `slot`; `slot == count` appends one.
    /// - Complexity: O(1) amortized: one dictionary lookup of the attribute's name.
    mutating func write(_ values: [String: SnapshotValue], at slot: Int) {
        write(stored: values[attribute.name], at: slot)
    }

    /// Writes into `slot` (`slot == count` appends one) the value of a row that holds `stored`
    /// under the attribute's name (`nil`: the key is absent), as `write(_:at:)` writes that row.
    /// - Complexity: O(1) amortized, no lookup.
    mutating func write(stored: SnapshotValue?, at slot: Int) {
        if slot == cells.count { appendEmpty() }
        if !others.isEmpty { others[slot] = nil }
        guard let canonical = attribute.value(stored: stored) else { return clear(slot, as: .unreadable) }
        switch (storage, canonical) {
        case (_, .null): return clear(slot, as: .null)
        case (.integers, .int(let v)): integers[slot] = v
        case (.reals, .double(let v)): reals[slot] = v
        case (.dates, .date(let v)): reals[slot] = v.timeIntervalSinceReferenceDate
        case (.strings, .string(let v)): strings[slot] = v
        case (.uuids, .uuid(let v)): uuids[slot] = v
        case (.bools, .bool(let v)): bools[slot] = v
        default:
            clear(slot, as: .other)
            others[slot] = canonical
            return
        }
        cells[slot] = .value
    }

    /// Marks `slot` as holding no typed value (releasing a string it held).
    mutating func clear(_ slot: Int, as cell: Cell = .empty) {
        cells[slot] = cell
        if storage == .strings { strings[slot] = "" }
        if cell != .other, !others.isEmpty { others[slot] = nil }
    }

    /// Keeps only the slots `kept` names, in that order (the slots' compaction).
    mutating func compact(keeping kept: [Int]) {
        var compacted = AttributeColumn(attribute)
        compacted.reserveCapacity(kept.count)
        for slot in kept {
            let new = compacted.cells.count
            compacted.appendEmpty()
            compacted.cells[new] = cells[slot]
            switch storage {
            case .integers: compacted.integers[new] = integers[slot]
            case .reals, .dates: compacted.reals[new] = reals[slot]
            case .strings: compacted.strings[new] = strings[slot]
            case .uuids: compacted.uuids[new] = uuids[slot]
            case .bools: compacted.bools[new] = bools[slot]
            }
            if let other = others[slot] { compacted.others[new] = other }
        }
        self = compacted
    }

    mutating func reserveCapacity(_ capacity: Int) {
        cells.reserveCapacity(capacity)
        switch storage {
        case .integers: integers.reserveCapacity(capacity)
        case .reals, .dates: reals.reserveCapacity(capacity)
        case .strings: strings.reserveCapacity(capacity)
        case .uuids: uuids.reserveCapacity(capacity)
        case .bools: bools.reserveCapacity(capacity)
        }
    }

    /// Appends an empty slot, with a placeholder in the typed array so that it stays indexed by slot.
    private mutating func appendEmpty() {
        cells.append(.empty)
        switch storage {
        case .integers: integers.append(0)
        case .reals, .dates: reals.append(0)
        case .strings: strings.append("")
        case .uuids: uuids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .bools: bools.append(false)
        }
    }
}

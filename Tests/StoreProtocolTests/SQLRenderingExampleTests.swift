import DataStores
import Foundation
import StoreProtocol
import Testing

/// A translated predicate as an SQLite WHERE clause, or nil where SQLite would not compute
/// exactly what Swift does (then let the Predicate decide on models).
func sqlWhere(_ expression: QueryExpression) -> String? {
    switch expression {
    case .attribute(let attribute):           // integers and Bools, stored as SQLite integers
        guard attribute.type == .bool || attribute.type.isInteger else { return nil }
        return "\"\(attribute.name)\""
    case .constant(.null): return "NULL"
    case .constant(.int(let value)): return "\(value)"
    case .constant(.bool(let value)): return value ? "1" : "0"
    case .constant: return nil                // strings compare by canonical equivalence in Swift
    case let .comparison(.attribute(attribute), op, .constant(.null)) where op == .equal || op == .notEqual:
        return "\"\(attribute.name)\" \(op == .equal ? "IS" : "IS NOT") NULL"
    case let .comparison(lhs, op, rhs):
        guard let lhs = sqlWhere(lhs), let rhs = sqlWhere(rhs) else { return nil }
        switch op {                           // IS treats NULL as Swift treats nil
        case .equal: return "\(lhs) IS \(rhs)"
        case .notEqual: return "\(lhs) IS NOT \(rhs)"
        default: return "\(lhs) \(op.rawValue) \(rhs)"
        }
    case let .and(lhs, rhs):
        guard let lhs = sqlWhere(lhs), let rhs = sqlWhere(rhs) else { return nil }
        return "(\(lhs) AND \(rhs))"
    case let .or(lhs, rhs):
        guard let lhs = sqlWhere(lhs), let rhs = sqlWhere(rhs) else { return nil }
        return "(\(lhs) OR \(rhs))"
    case .not(let operand): return sqlWhere(operand).map { "NOT \($0)" }
    case let .coalesce(lhs, rhs):
        guard let lhs = sqlWhere(lhs), let rhs = sqlWhere(rhs) else { return nil }
        return "COALESCE(\(lhs), \(rhs))"
    case .ifPresent, .string, .isMember: return nil
    }
}

@Suite struct SQLRenderingExampleTests {
    @Model final class Task {
        var title = ""
        var notes: String?
        var priority = 0
        var estimate: Int?
        var done = false
        init() {}
    }

    func rendered(_ predicate: Predicate<Task>) -> String? {
        guard case .expression(let expression) = FetchQuery(FetchDescriptor(predicate: predicate)).filter else { return nil }
        return sqlWhere(expression)
    }

    @Test func rendersWhatSQLiteComputesExactly() {
        #expect(rendered(#Predicate { $0.priority > 2 && ($0.done || $0.notes == nil) })
                == #"("priority" > 2 AND ("done" OR "notes" IS NULL))"#)
        #expect(rendered(#Predicate { !(($0.estimate ?? 0) >= 5) && $0.estimate != 3 })
                == #"(NOT COALESCE("estimate", 0) >= 5 AND "estimate" IS NOT 3)"#)
    }

    @Test func leavesTheRestToModels() {
        #expect(rendered(#Predicate { $0.title == "café" }) == nil, "strings compare by canonical equivalence in Swift")
        #expect(rendered(#Predicate { $0.title.contains("x") }) == nil)
    }
}

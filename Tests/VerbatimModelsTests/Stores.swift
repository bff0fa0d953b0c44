import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// The backends the verbatim models round-trip on: each opened again, as a new container on the
/// same stored data, to read back what was saved.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, json

    var testDescription: String { rawValue }

    /// A way to open (and open again) one fresh store of this kind holding `type` and the models
    /// its relationships reach.
    func store(for type: any PersistentModel.Type) throws -> () throws -> ModelContainer {
        switch self {
        case .memory:
            let name = "verbatim-\(UUID())"
            return { try ModelContainer(for: type, configurations: MemoryStoreConfiguration(name: name, isShared: true)) }
        case .json:
            let url = try temporaryDirectory().appending(path: "store.json")
            return { try ModelContainer(for: type, configurations: JSONStoreConfiguration(url: url)) }
        }
    }
}

/// The values a test gives a model and reads back: dates with fractions of a second, so that a
/// store that rounds them fails.
enum Sample {
    static let startDate = Date(timeIntervalSinceReferenceDate: 786_000_000.125)
    static let endDate = Date(timeIntervalSinceReferenceDate: 786_604_800.5)
}

import Foundation
import StoreProtocol
import StoreFiles

/// The talk's sample store: every record in one JSON file, rewritten whole at each save
/// (temporary file, fsync, rename, fsync of the directory: the same durability as ours).
struct RewrittenJSONFile {
    let path: String
    var records: [TripRecord] = []

    init(path: String) { self.path = path }

    mutating func save(inserting inserted: some Sequence<TripRecord>) throws {
        records.append(contentsOf: inserted)
        try FileIO.replaceAtomically(path, with: try JSONEncoder().encode(records))
    }
}

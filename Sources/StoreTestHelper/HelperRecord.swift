import Foundation
import StoreProtocol

/// The record the helper writes: each save inserts `batchSize` records sharing a `batch`.
final class HelperRecord: PersistentModel {
    var id = UUID()
    var batch: Int
    var item: Int
    var author: String
    var payload: String
    var time: Date

    init(batch: Int, item: Int, author: String, payload: String, time: Date = Date()) {
        self.batch = batch
        self.item = item
        self.author = author
        self.payload = payload
        self.time = time
    }
}

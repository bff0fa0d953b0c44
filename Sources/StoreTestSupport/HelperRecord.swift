import DataStores

/// The record the helper process writes (each save inserts `batchSize` records sharing a
/// `batch`), and the tests read back.
@Model
public final class HelperRecord {
    public var id = UUID()
    public var batch: Int
    public var item: Int
    public var author: String
    public var payload: String
    public var time: Date

    public init(batch: Int, item: Int, author: String, payload: String, time: Date = Date()) {
        self.batch = batch
        self.item = item
        self.author = author
        self.payload = payload
        self.time = time
    }
}

import DataStores

/// What the writers save: one model per save, named by writer and sequence.
@Model final class HelperEntry {
    #Index<HelperEntry>([\.writer])
    var id: String
    var writer: Int
    var sequence: Int

    init(writer: Int, sequence: Int) {
        id = "w\(writer)-\(sequence)"
        self.writer = writer
        self.sequence = sequence
    }
}

import DataStores

/// A model of the error tests.
@Model final class PGNote {
    #Index<PGNote>([\.rank])
    var title: String
    var rank: Int

    init(title: String, rank: Int) {
        self.title = title
        self.rank = rank
    }
}

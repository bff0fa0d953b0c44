import DataStores

/// The talk's trip with its relationships: a bucket list (to-many, cascade, with an inverse), a
/// living accommodation (to-one, nullify, with an inverse), a guide (to-one, deny, no inverse)
/// and tags (to-many, no action, no inverse). Its items preserve their trip on deletion.
@Model
public final class SuiteVoyage {
    public var id = UUID()
    /// The voyage's name, which following predicates (`$0.voyage?.name`) compare.
    public var name: String
    /// To-many, cascade, inverse ``SuiteBucketItem/voyage``: kept in order, deleted with the
    /// voyage in the same transaction, and set from either side.
    @Relationship(deleteRule: .cascade, inverse: \SuiteBucketItem.voyage) public var bucketList: [SuiteBucketItem] = [SuiteBucketItem]()
    /// To-one, nullify, inverse ``SuiteAccommodation/voyage``: kept when the voyage is deleted,
    /// its inverse then set to `nil` by an update in the same transaction.
    @Relationship(inverse: \SuiteAccommodation.voyage) public var livingAccommodation: SuiteAccommodation?
    /// To-one, deny, no inverse: deleting a voyage that has a guide throws and changes nothing.
    @Relationship(deleteRule: .deny) public var guide: SuiteGuide?
    /// To-many, no action, no inverse: a tag deleted elsewhere is dropped when the voyage loads.
    @Relationship(deleteRule: .noAction) public var tags: [SuiteTag] = []

    /// Makes a voyage with a new `id` and no related models.
    public init(name: String) { self.name = name }
}

/// A bucket-list item of a ``SuiteVoyage``: the to-many side's destination, and a to-one
/// relationship back that its tombstone preserves.
@Model
public final class SuiteBucketItem {
    public var id = UUID()
    /// The item's title; preserved in its tombstone.
    @Attribute(.preserveValueOnDeletion) public var title: String
    /// The inverse of ``SuiteVoyage/bucketList``: set at save when only the voyage's side was
    /// written, and preserved in the tombstone (as the voyage's identifier).
    @Attribute(.preserveValueOnDeletion) public var voyage: SuiteVoyage?

    /// Makes an item with a new `id`, in no voyage.
    public init(title: String) { self.title = title }
}

/// A voyage's living accommodation: a to-one relationship with a to-one inverse, nullified
/// when its voyage is deleted.
@Model
public final class SuiteAccommodation {
    public var id = UUID()
    /// The accommodation's name, which the cases read to tell accommodations apart.
    public var place: String
    /// The inverse of ``SuiteVoyage/livingAccommodation``; `nil` once its voyage is deleted or
    /// takes another accommodation.
    public var voyage: SuiteVoyage?

    /// Makes an accommodation with a new `id`, of no voyage.
    public init(place: String) { self.place = place }
}

/// A voyage's guide, the destination of a deny rule without an inverse: it stays when its
/// voyage is finally deleted.
@Model
public final class SuiteGuide {
    public var id = UUID()
    /// The guide's name, which the case reads to see that the guide stays.
    public var name: String

    /// Makes a guide with a new `id`.
    public init(name: String) { self.name = name }
}

/// A voyage's tag, the destination of a no-action rule without an inverse: deleting one leaves
/// a reference that loads as dropped.
@Model
public final class SuiteTag {
    public var id = UUID()
    /// The tag's label ("cold", "far"), which the cases read.
    public var label: String

    /// Makes a tag with a new `id`.
    public init(label: String) { self.label = label }
}

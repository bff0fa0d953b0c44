/// Describes one store: which backend, where, and with what options. ``ModelContainer`` makes
/// the store from it (`Store(configuration)`).
public protocol DataStoreConfiguration: Sendable {
    /// The store type the container makes from this configuration.
    associatedtype Store: DataStore where Store.Configuration == Self

    /// A name for the store, used in messages.
    var name: String { get }
    /// The model types this store holds; `nil` means every type of the container, which the
    /// container fills in before it makes the store.
    var schema: Schema? { get set }
    /// `false` makes the store read-only: saves throw ``DataStoreError/Code/readOnly``.
    var allowsSave: Bool { get set }
}

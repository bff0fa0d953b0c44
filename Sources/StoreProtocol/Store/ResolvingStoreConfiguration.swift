/// A configuration that stands for another one: ``ModelContainer`` asks it for
/// ``resolvedConfiguration()`` and opens that configuration's store in its place, so the
/// container holds the backend's own store (no wrapper forwards its calls).
///
/// `ModelConfiguration` (module `DataStores`) is one: it picks the memory store, the JSON store or
/// a registered backend from its options. A configuration of your own that chooses among
/// backends (by the environment, say) can be one too. The container never opens its `Store`
/// type: give it a type whose initializer throws, as `ModelConfiguration.UnresolvedStore` does.
public protocol ResolvingStoreConfiguration: DataStoreConfiguration {
    /// The configuration whose store the container opens in this one's place. The container
    /// calls it each time it opens, then gives the result its schema when the result has none
    /// (pass ``DataStoreConfiguration/schema`` and ``DataStoreConfiguration/allowsSave`` on).
    /// - Throws: a typed error saying why no store can be chosen (the container throws it, and
    ///   opens nothing).
    func resolvedConfiguration() throws -> any DataStoreConfiguration
}

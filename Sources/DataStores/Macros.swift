/// Makes a class a persistent model, as SwiftData's `@Model` does.
///
/// ```swift
/// @Model
/// final class Trip {
///     #Unique<Trip>([\.name, \.startDate])
///     @Attribute(.preserveValueOnDeletion) var name: String
///     var startDate = Date.now
///     @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
///     var livingAccommodation: LivingAccommodation?
///     @Transient var isExpanded = false
///     init(name: String) { self.name = name }
/// }
/// ```
///
/// The class conforms to `PersistentModel` and `Observable`. Every stored `var` is persisted
/// unless it is `@Transient` or `@Attribute(.ephemeral)`; computed, `static` and `lazy`
/// properties are not. A property whose type is a model, an optional model or an array of models
/// is a relationship. A `let` without an initial value is persisted and never changes. Identity
/// is implicit: the macro adds `id` (a `UUID`) unless the class declares its own `id`, which is
/// then the primary key. A property whose name is a keyword written in backticks (`default`)
/// is stored under the plain name. A property's initial value is its default in the schema (what a migration gives
/// stored models that lack it), typed as the written type: `var visibility: Visibility = .none`
/// is the enum's case `none`, not no value.
///
/// Each persisted `var` reads and writes typed storage, reports to Observation and marks that
/// one attribute changed, so a save looks only at what changed. The macro also generates the
/// model's metadata and its encode to and decode from store values (what it adds is listed on
/// `PersistentModel`); nothing is reflected at run time.
///
/// In a module whose default isolation is the main actor, declare the model
/// `@Model nonisolated class Trip` (or `final class`): its conformances are `nonisolated`, and
/// models cross the store's boundary from any isolation.
///
/// The compiler refuses, naming the property and what to do: `@Model` on a struct, enum, actor
/// or protocol; a class that inherits from another model class (a model is one class: give the
/// shared properties a model of their own, or relate the two); a `#Unique` / `#Index` key path
/// that names no persisted property; a `@Transient` or `.ephemeral` property that is neither
/// optional nor has an initial value; a `let` with an initial value (a model read from the store
/// could not take the stored one); observers on a persisted property; several properties in one
/// `var`; a stored property inside `#if` in the class body (the generated schema and stored values
/// are the same in every build: move it out of the `#if`, or mark it `@Transient`);
/// `@ObservationIgnored` on a property that is not `@Transient` (SwiftData documents no meaning
/// for it on a model property, and guessing whether it is stored would lose data one way or the
/// other: write `@Transient` for a property the store should not keep, which is then neither
/// stored nor observed). Type checks (an attribute type a store cannot keep, `@Relationship` on a
/// property that holds no model, a mistyped inverse) are reported by the overloads the
/// expansion calls.
@attached(
    member, conformances: PersistentModel, Observable,
    names: named(_$backingData), named(persistentBackingData), named(id), named(schemaMetadata), named(storedValues),
    named(init(storedValues:)), named(assignStoredValues))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "DataStoresMacros", type: "ModelMacro")

/// What `@Model` puts on each persisted stored `var`: accessors over typed storage `_name` that
/// report to Observation and mark attribute `index` (its position in the model's metadata)
/// changed. Public because the expansion names it; not for direct use.
@attached(accessor, names: named(init), named(get), named(set), named(_modify))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(index: Int) = #externalMacro(module: "DataStoresMacros", type: "PersistedPropertyMacro")

/// Options of one attribute of an `@Model` class, as SwiftData's `@Attribute`: `.unique`,
/// `.preserveValueOnDeletion`, `.externalStorage`, `.ephemeral` (observed, not stored),
/// `.transformable(by:)`, and `.spotlight` / `.allowsCloudEncryption` (accepted; no effect on
/// Linux). `originalName` is the name the attribute was stored under before (a lightweight
/// migration renames it); `hashModifier` marks a change of the attribute's stored form.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "DataStoresMacros", type: "MarkerMacro")

/// One relationship of an `@Model` class, as SwiftData's `@Relationship`: what deleting the
/// model does to the related ones (`deleteRule`), how many related models a save accepts
/// (`minimumModelCount`, `maximumModelCount`; a save outside them throws), the former name, and
/// the destination's property that names this model back (`inverse: \BucketListItem.trip`),
/// inferred where there is exactly one candidate.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "DataStoresMacros", type: "MarkerMacro")

/// A stored property of an `@Model` class that is not persisted: it keeps its initial value in
/// a model read from the store, so it needs one (or an optional type).
@attached(peer)
public macro Transient() = #externalMacro(module: "DataStoresMacros", type: "MarkerMacro")

/// Unique constraints of an `@Model` class, written in its body: each array of key paths is one
/// constraint, and a model inserted with the same values as a stored one updates it.
/// `#Unique<Trip>([\.name, \.startDate], [\.code])`.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "DataStoresMacros", type: "SchemaConstraintMacro")

/// Indices of an `@Model` class, written in its body: each array of key paths is one index a
/// store may keep. `#Index<Trip>([\.name], [\.startDate, \.endDate])`.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "DataStoresMacros", type: "SchemaConstraintMacro")

/// Makes an actor a ``ModelActor``, as SwiftData's `@ModelActor` does: it owns a context of its
/// own and runs on that context's executor, for background work such as a batch import.
///
/// ```swift
/// @ModelActor
/// actor TripImporter {
///     func importTrip(named name: String) throws -> PersistentIdentifier {
///         let trip = Trip(name: name)
///         modelContext.insert(trip)
///         try modelContext.save()
///         return trip.persistentModelID
///     }
/// }
/// ```
///
/// The macro adds `modelContainer`, `modelExecutor` (a ``DefaultSerialModelExecutor`` on a
/// new ``ModelContext`` of the container) and `init(modelContainer:)`; the ``ModelActor``
/// conformance adds `modelContext` and `subscript(_:as:)`. Stored properties of the actor need
/// initial values: the generated initializer sets only those three. Applied to anything but an
/// actor, the compiler refuses with a message that says so.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "DataStoresMacros", type: "ModelActorMacro")

import Foundation

/// The models a context knows, by identifier, and which of them may differ from their stored
/// values.
///
/// A registration is *settled* when it is a stored model watched by an armed ``ChangeWatch``
/// since the context last saw it hold its stored values (``ModelContext/Registration/isSettled``):
/// it cannot have changed, so saves skip it. Every other registration's identifier is kept in
/// `unsettled`, or in the touch log its watch appends to when its model changes. So
/// ``mayHaveChanged()`` costs what may have changed, not what the context holds: models of a type
/// that is not `@Observable` are never settled and are looked at by every save, as before.
///
/// Every model it holds is recorded as this context's in ``ModelOwnership``, and released when
/// the table lets it go.
struct RegistrationTable {
    typealias Registration = ModelContext.Registration

    /// The context's ``ModelContext/editingID``, under which ``ModelOwnership`` records its models.
    let context: UUID
    /// The context's author, for ``ModelOwnership``'s messages.
    var author: String?
    /// The container of the context: a model tracked under another container is refused.
    unowned let container: ModelContainer

    init(context: UUID, container: ModelContainer) {
        self.context = context
        self.container = container
    }

    private(set) var byIdentifier: [PersistentIdentifier: Registration] = [:]
    /// Identifiers of registrations that may not be settled (a superset: some may be settled or
    /// gone since).
    private var unsettled: Set<PersistentIdentifier> = []
    /// Where the watches of this context's registrations log changes.
    let touches = TouchLog()

    /// The registration of a model; setting one counts it as unsettled.
    subscript(identifier: PersistentIdentifier) -> Registration? {
        get { byIdentifier[identifier] }
        set {
            let old = byIdentifier[identifier]
            byIdentifier[identifier] = newValue
            if let old, old.model !== newValue?.model { release(old) }
            if let newValue {
                newValue.watch?.move(to: identifier)
                newValue.backing?.track(by: touches, as: identifier)
                unsettled.insert(identifier)
                ModelOwnership.track(newValue.model, by: context, author: author, in: container)
            }
        }
    }

    /// Forgets a model deleted from its store by a save or a batch delete: ``ModelOwnership``
    /// remembers it as deleted, so that no relationship stores it again.
    mutating func forgetDeleted(_ identifier: PersistentIdentifier) {
        guard let old = byIdentifier.removeValue(forKey: identifier) else { return }
        release(old, deleted: true)
    }

    /// Lets go of a registration's model: in ``ModelOwnership``, and its backing stops reporting
    /// changes here.
    private func release(_ registration: Registration, deleted: Bool = false) {
        registration.backing?.stopTracking(by: touches)
        ModelOwnership.release(registration.model, by: context, deleted: deleted)
    }

    /// Releases every model in ``ModelOwnership`` (the context is going away).
    func releaseAll() {
        for registration in byIdentifier.values { registration.backing?.stopTracking(by: touches) }
        ModelOwnership.releaseAll(byIdentifier.values.map { $0.model }, by: context)
    }

    var count: Int { byIdentifier.count }

    /// Counts a registration as unsettled after a change its watch does not see (its state).
    mutating func unsettle(_ identifier: PersistentIdentifier) {
        unsettled.insert(identifier)
    }

    /// The registrations that may differ from their stored values (inserted, deleted, changed,
    /// or not watched), in the order they became known unless `inOrder` is `false`.
    /// - Complexity: O(*u* log *u*) for *u* registrations not settled since the last call, plus
    ///   those changed since; O(*u*) unordered.
    mutating func mayHaveChanged(inOrder: Bool = true) -> [Registration] {
        unsettled.formUnion(touches.drain())
        var found: [Registration] = []
        found.reserveCapacity(unsettled.count)
        var settled: [PersistentIdentifier] = []
        for identifier in unsettled {
            if let registration = byIdentifier[identifier], !registration.isSettled {
                found.append(registration)
            } else {
                settled.append(identifier)
            }
        }
        for identifier in settled { unsettled.remove(identifier) }
        // A set keeps its capacity, and iterating walks it: after 100,000 fetched models were
        // forgotten, each call would walk 100,000 empty buckets.
        if unsettled.capacity > 4 * max(unsettled.count, 64) {
            var smaller = Set<PersistentIdentifier>(minimumCapacity: unsettled.count)
            smaller.formUnion(unsettled)
            unsettled = smaller
        }
        return inOrder ? found.sorted { $0.order < $1.order } : found
    }

    /// Drops the registrations `shouldForget` selects.
    /// - Complexity: O(*n*) for *n* registrations.
    mutating func removeAll(where shouldForget: (Registration) -> Bool) -> Int {
        let forgotten = byIdentifier.compactMap { shouldForget($0.value) ? $0.key : nil }
        for identifier in forgotten {
            if let old = byIdentifier.removeValue(forKey: identifier) { release(old) }
        }
        // A dictionary keeps its capacity: after forgetting most of 100,000 models, each pass
        // over the registrations would walk 200,000 empty slots.
        if byIdentifier.capacity > 4 * max(byIdentifier.count, 1_024) {
            byIdentifier = Dictionary(uniqueKeysWithValues: byIdentifier.map { ($0.key, $0.value) })
        }
        return forgotten.count
    }
}

import Foundation

/// The models a context knows, by identifier, and which of them may differ from their stored
/// values.
///
/// A registration is *settled* when it is a stored model whose backing has had no property set
/// since the context last saw it hold its stored values (``ModelContext/Registration/isSettled``):
/// it cannot have changed, so saves skip it. Every other registration's identifier is kept in
/// `unsettled`, or in the touch log its backing appends to on its first change. So
/// ``mayHaveChanged()`` costs what may have changed, not what the context holds.
///
/// A save asks it several times (forgetting models no one holds, upserts, the save's own pass,
/// and with relationships the inverse and delete-rule passes), mostly with nothing changed in
/// between: each look keeps what it found (``lastLook``), and the next look answers from it when
/// the table and the touch log are as they were and none of the registrations found has settled
/// since (see ``mayHaveChanged(inOrder:)``).
///
/// Every model it holds is tracked by its ``touches`` log (the model's backing says so to other
/// contexts, ``ModelOwner``), and released when the table lets it go.
struct RegistrationTable {
    typealias Registration = ModelContext.Registration

    init(context: UUID, container: ModelContainer) {
        touches = TouchLog(context: context, container: container)
    }

    /// The context's author, for ``ModelOwner``'s messages.
    var author: String? {
        get { touches.author }
        nonmutating set { touches.author = newValue }
    }

    private(set) var byIdentifier: [PersistentIdentifier: Registration] = [:]
    /// The registrations that may not be settled, by identifier (a superset: some may be settled
    /// since). Each is the registration `byIdentifier` holds under its identifier: the table
    /// removes an entry with the registration, and points it at the registration that replaces
    /// one, so that a scan reads them here without a hashed lookup each in `byIdentifier`
    /// (about 600 instructions a model of a save, callgrind).
    private var unsettled: [PersistentIdentifier: Registration] = [:]
    /// Where the backings of this context's registrations log changes.
    let touches: TouchLog
    /// What the last ``mayHaveChanged(inOrder:)`` found, and whether in order; `nil` once the
    /// table changed since (every mutation of `byIdentifier` or `unsettled` forgets it). A
    /// registration enters the answer only through those two or the touch log, which the next
    /// look drains: so while this is kept and the log is empty, the answer is this, and a look
    /// that finds one of these settled since scans again (a scan would drop it). A model a fetch
    /// registers settled (``registerSettledIfAbsent(_:_:)``) changes no answer: its identifier
    /// is not among the unsettled, and its first change reaches the touch log.
    private var lastLook: (found: [Registration], inOrder: Bool)?
    /// Whether a look may answer from ``lastLook``; off, every look scans as before it was kept
    /// (the tests' reference: the same saves must store the same).
    var reusesLastLook = true

    /// The registration of a model; setting one counts it as unsettled.
    subscript(identifier: PersistentIdentifier) -> Registration? {
        get { byIdentifier[identifier] }
        set {
            lastLook = nil
            guard let newValue else {
                if let old = byIdentifier.removeValue(forKey: identifier) {
                    release(old)
                    unsettled.removeValue(forKey: identifier)
                }
                return
            }
            hold(newValue, as: identifier)
            unsettled[identifier] = newValue
        }
    }

    /// Makes room for `additional` more registrations, so that registering a fetch's models
    /// does not grow (and rehash) the table again and again: about 450 instructions a model
    /// of a large fetch (callgrind).
    ///
    /// Not for a few models: `reserveCapacity` runs the standard library's unspecialized generic
    /// code (about 1,100 instructions for a fetch of one model, callgrind), where an insert's own
    /// growth is specialized and cheap for a small table.
    mutating func reserveCapacity(adding additional: Int) {
        guard additional > 16, byIdentifier.capacity < byIdentifier.count + additional else { return }
        byIdentifier.reserveCapacity(byIdentifier.count + additional)
    }

    /// Registers a model that holds its stored values and that the caller settles right away
    /// (``ModelContext/Registration/settle()``): a fetched model without relationships. As the
    /// subscript's set, without counting it as unsettled: the next look would find it settled
    /// and drop it again, and a change to it reaches the touch log.
    /// - Complexity: one hashed lookup, where the subscript's set makes two.
    mutating func registerSettled(_ registration: Registration, as identifier: PersistentIdentifier) {
        hold(registration, as: identifier)
    }

    /// Registers `make()` under `identifier` as ``registerSettled(_:as:)`` does, unless the table
    /// holds a registration there: then the table is left as it is (`make` is not called) and
    /// that registration is returned, with `made` `false`.
    /// - Complexity: one hashed lookup, where a look for the registration and then
    ///   ``registerSettled(_:as:)`` make two (about 500 instructions a model of a fetch, callgrind).
    mutating func registerSettledIfAbsent(
        _ identifier: PersistentIdentifier, _ make: () -> Registration
    ) -> (registration: Registration, made: Bool) {
        var made = false
        // The `default:` subscript's in-place access finds the bucket once and fills it only
        // when it is empty, with the value its autoclosure makes then.
        let registration = Self.read(&byIdentifier[identifier, default: { made = true; return make() }()])
        if made { registration.backing.track(by: touches, as: identifier) }
        return (registration, made)
    }

    private static func read(_ registration: inout Registration) -> Registration { registration }

    /// Puts a registration in the table, tracked by its touch log, releasing the one it replaces.
    private mutating func hold(_ registration: Registration, as identifier: PersistentIdentifier) {
        lastLook = nil
        // One hashed lookup for the old and the new registration.
        if let old = byIdentifier.updateValue(registration, forKey: identifier), old !== registration {
            if old.model !== registration.model { release(old) }
            // An unsettled entry stands for the registration held now (rare: a replacement).
            if let entry = unsettled.index(forKey: identifier) { unsettled.values[entry] = registration }
        }
        registration.backing.track(by: touches, as: identifier)
    }

    /// Forgets a model deleted from its store by a save or a batch delete: its backing remembers
    /// it as deleted, so that no relationship stores it again.
    mutating func forgetDeleted(_ identifier: PersistentIdentifier) {
        lastLook = nil
        guard let old = byIdentifier.removeValue(forKey: identifier) else { return }
        unsettled.removeValue(forKey: identifier)
        release(old, deleted: true)
    }

    /// Lets go of a registration's model: its backing stops reporting changes here.
    private func release(_ registration: Registration, deleted: Bool = false) {
        registration.backing.stopTracking(by: touches, deleted: deleted)
    }

    /// Lets go of every model (the context is going away).
    func releaseAll() {
        for registration in byIdentifier.values { registration.backing.stopTracking(by: touches) }
    }

    var count: Int { byIdentifier.count }

    /// Counts a registration as unsettled after a change its backing does not see (its state).
    mutating func unsettle(_ identifier: PersistentIdentifier) {
        lastLook = nil
        if let registration = byIdentifier[identifier] { unsettled[identifier] = registration }
    }

    /// The registrations that may differ from their stored values (inserted, deleted, changed,
    /// or not settled), in the order they became known unless `inOrder` is `false`.
    ///
    /// A look right after another, with no registration added, removed, unsettled or logged as
    /// changed since, and none of those found settled since, gives what the last look found
    /// (in order if either look asked for it) without a hashed lookup: a save's passes share one
    /// scan.
    /// - Complexity: O(*u* log *u*) for *u* registrations not settled since the last call, plus
    ///   those changed since; O(*u*) unordered. O(*u*) checks of their state when the table and
    ///   the touch log did not change since the last call (and O(*u* log *u*) once, when it was
    ///   unordered and this one is in order).
    mutating func mayHaveChanged(inOrder: Bool = true) -> [Registration] {
        var look = lookOrScan()
        if inOrder, !look.inOrder {
            look.found.sort { $0.order < $1.order }
            look.inOrder = true
        }
        lastLook = look
        return look.found
    }

    /// What the last look found, when it still holds (see ``lastLook``), else a scan of the
    /// registrations that may not be settled, in no order.
    private mutating func lookOrScan() -> (found: [Registration], inOrder: Bool) {
        let touched = touches.drain()
        if reusesLastLook, touched.isEmpty, let last = lastLook, last.found.allSatisfy({ !$0.isSettled }) { return last }
        // A changed model's identifier, as its backing logged it: one lookup each.
        for identifier in touched {
            if let registration = byIdentifier[identifier] { unsettled[identifier] = registration }
        }
        var found: [Registration] = []
        found.reserveCapacity(unsettled.count)
        var settled: [PersistentIdentifier] = []
        for (identifier, registration) in unsettled {
            if registration.isSettled {
                settled.append(identifier)
            } else {
                found.append(registration)
            }
        }
        for identifier in settled { unsettled.removeValue(forKey: identifier) }
        // A dictionary keeps its capacity, and iterating walks it: after 100,000 fetched models
        // were forgotten, each call would walk 100,000 empty buckets.
        if unsettled.capacity > 4 * max(unsettled.count, 64) {
            var smaller = [PersistentIdentifier: Registration](minimumCapacity: unsettled.count)
            smaller.merge(unsettled) { _, new in new }
            unsettled = smaller
        }
        return (found, false)
    }

    /// Drops the registrations `shouldForget` selects.
    /// - Complexity: O(*n*) for *n* registrations.
    mutating func removeAll(where shouldForget: (Registration) -> Bool) -> Int {
        let forgotten = byIdentifier.compactMap { shouldForget($0.value) ? $0.key : nil }
        if !forgotten.isEmpty { lastLook = nil }
        for identifier in forgotten {
            if let old = byIdentifier.removeValue(forKey: identifier) { release(old) }
        }
        // The unsettled entries of the registrations forgotten go too: by a lookup of each
        // entry when there are fewer entries than models forgotten (a sweep of many fetched
        // models), else by a removal of each model forgotten.
        if unsettled.count < forgotten.count {
            unsettled = unsettled.filter { byIdentifier[$0.key] === $0.value }
        } else {
            for identifier in forgotten { unsettled.removeValue(forKey: identifier) }
        }
        // A dictionary keeps its capacity: after forgetting most of 100,000 models, each pass
        // over the registrations would walk 200,000 empty slots.
        if byIdentifier.capacity > 4 * max(byIdentifier.count, 1_024) {
            byIdentifier = Dictionary(uniqueKeysWithValues: byIdentifier.map { ($0.key, $0.value) })
        }
        return forgotten.count
    }
}

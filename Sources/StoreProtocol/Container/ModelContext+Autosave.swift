import Dispatch
import Foundation

/// Autosave: SwiftData's `ModelContext.autosaveEnabled` (see ``ModelContext/autosaveEnabled``).
extension ModelContext {
    /// Posted (object: the context) when an autosave throws; the error is under
    /// ``autosaveErrorKey`` in `userInfo`. The context keeps the changes it could not save.
    public static let autosaveDidFail = Notification.Name("ModelContext.autosaveDidFail")
    /// The `userInfo` key of an ``autosaveDidFail`` notification's error (an `any Error`).
    public static let autosaveErrorKey = "error"

    /// Whether the context saves by itself: `false` for a context made by hand, `true` for the
    /// container's ``ModelContainer/mainContext``, as in SwiftData.
    ///
    /// A change made on the main actor to a context that autosaves (an insert, a delete, a
    /// model's first change since it was last saved or fetched, an undo or redo) schedules one
    /// save on the main actor, which runs once the main actor has finished the work under way
    /// (the code up to its next `await`): a burst of changes made in one stretch is one save. A
    /// context that autosaves also saves every ``autosaveInterval`` while it has changes.
    /// Turning autosave on with unsaved changes schedules a save of them. A context used off
    /// the main actor never autosaves: save it yourself.
    ///
    /// A failed autosave is never dropped: it is posted as ``autosaveDidFail`` and handed to
    /// ``autosaveErrorHandler`` (by default, written to standard error). The changes stay
    /// pending; the next change or the next periodic save tries again.
    ///
    /// A command-line program that changes models and then exits, or a test that reads the
    /// store right after a change, calls `try context.save()` itself: the scheduled save runs
    /// only when the main actor is idle, which `exit()` or the end of `main` does not wait for.
    public var autosaveEnabled: Bool {
        get { autosave.isEnabled }
        set {
            guard newValue != autosave.isEnabled else { return }
            autosave.isEnabled = newValue
            if newValue {
                autosave.context = self
                registrations.touches.autosave = autosave
                autosave.startPeriodicSaves()
                if hasChanges { autosave.changeWasMade() }
            } else {
                autosave.stopPeriodicSaves()
            }
        }
    }

    /// What the context does with an error an autosave threw, besides posting
    /// ``autosaveDidFail``: by default, writes it to standard error. Set it to show the error
    /// to the user (the changes are still pending: ``rollback()`` drops them).
    public var autosaveErrorHandler: (any Error) -> Void {
        get { autosave.errorHandler }
        set { autosave.errorHandler = newValue }
    }

    /// How often a context that autosaves saves while it has changes, besides after changes:
    /// 30 seconds unless set (SwiftData documents a periodic save, not its period).
    ///
    /// An interval under one second is taken as one second: a failing autosave retried without
    /// pause would keep the main actor busy reporting it.
    public var autosaveInterval: Duration {
        get { autosave.interval }
        set {
            autosave.interval = max(newValue, .seconds(1))
            if autosave.isEnabled { autosave.startPeriodicSaves() }
        }
    }

    /// Saves (when `onlyWithChanges`, only if ``hasChanges``); reports an error instead of
    /// throwing it. A save scheduled by a change saves whatever ``hasChanges`` says: a new model
    /// that refers to a stored one is found by the save itself.
    func saveForAutosave(onlyWithChanges: Bool) {
        guard !onlyWithChanges || hasChanges else { return }
        // A failed save gives the models their changes back, which would schedule this again.
        autosave.isSaving = true
        do {
            try save()
        } catch {
            autosave.isSaving = false
            NotificationCenter.default.post(name: Self.autosaveDidFail, object: self, userInfo: [Self.autosaveErrorKey: error])
            autosave.errorHandler(error)
            return
        }
        autosave.isSaving = false
        // Changes made during the save (by a willSave or didSave observer) are new ones: they
        // get a save of their own, as a change made at any other time does.
        if hasChanges { autosave.changeWasMade() }
    }
}

/// A context's autosave: whether it is on, the save scheduled on the main actor, the periodic
/// saves. Used only on the main actor once on (``changeWasMade()`` checks it).
final class AutosaveState {
    var isEnabled = false
    weak var context: ModelContext?
    var errorHandler: (any Error) -> Void = { error in
        FileHandle.standardError.write(Data("ModelContext autosave failed; the changes are still pending: \(error)\n".utf8))
    }
    var interval: Duration = .seconds(30)
    /// Whether a save is scheduled and has not run yet: changes made meanwhile are in it.
    private var isScheduled = false
    /// Whether an autosave is under way (its changes are not new changes).
    var isSaving = false
    private var periodic: Task<Void, Never>?

    deinit { periodic?.cancel() }

    /// A change was made: schedules a save on the main actor, unless one is scheduled already
    /// or the change was made off the main actor (the context is then not the main actor's).
    func changeWasMade() {
        guard isEnabled, !isScheduled, !isSaving, Self.isOnMainActor else { return }
        isScheduled = true
        let state = MainActorOnly(self)
        Task { @MainActor in
            state.value.isScheduled = false
            state.value.saveNow(onlyWithChanges: false)
        }
    }

    func saveNow(onlyWithChanges: Bool) {
        guard isEnabled else { return }
        context?.saveForAutosave(onlyWithChanges: onlyWithChanges)
    }

    func startPeriodicSaves() {
        guard Self.isOnMainActor else { return }
        periodic?.cancel()
        let state = WeakMainActorOnly(self)
        let interval = interval
        periodic = Task { @MainActor in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let state = state.value else { return }
                state.saveNow(onlyWithChanges: true)
            }
        }
    }

    /// Whether the caller runs on the main actor, which runs its jobs on the main dispatch queue
    /// (not always on the main thread: under a test harness that keeps the main thread, it does
    /// not). Asked of the queue, through a key only the main queue holds.
    static var isOnMainActor: Bool { DispatchQueue.getSpecific(key: mainQueueKey) != nil }

    private static let mainQueueKey: DispatchSpecificKey<Void> = {
        let key = DispatchSpecificKey<Void>()
        DispatchQueue.main.setSpecific(key: key, value: ())
        return key
    }()

    func stopPeriodicSaves() {
        periodic?.cancel()
        periodic = nil
    }
}

/// A value handed to a main-actor task from the main actor, which is where it is used.
private struct MainActorOnly<Value>: @unchecked Sendable {
    // @unchecked: made on the main actor (checked by the caller) and read on the main actor.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// ``MainActorOnly``, held weakly: the periodic saves end when the context is gone.
private struct WeakMainActorOnly<Value: AnyObject>: @unchecked Sendable {
    // @unchecked: as MainActorOnly.
    weak var value: Value?
    init(_ value: Value) { self.value = value }
}

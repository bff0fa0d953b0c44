import Foundation

/// The container's main context: SwiftData's `ModelContainer.mainContext`.
extension ModelContainer {
    /// The context for the main actor, the one user-interface code uses: the same instance each
    /// time, made on first use, with ``ModelContext/autosaveEnabled`` on (see
    /// ``ModelContext/autosaveEnabled`` for when it saves, and what a command-line program calls
    /// before it exits). Make a context of your own, or a ``ModelActor``, for work off the main
    /// actor.
    ///
    /// The main context holds its container (``ModelContext/container``): once used, a container
    /// lives as long as the process.
    @MainActor public var mainContext: ModelContext {
        if let context = mainContextStorage.context { return context }
        let context = ModelContext(self)
        context.autosaveEnabled = true
        mainContextStorage.context = context
        return context
    }

    /// Whether the main context records undo: `true` gives ``mainContext`` a
    /// ``ModelUndoManager`` (when it has none), `false` removes it. SwiftData spells this
    /// `isUndoEnabled:` on SwiftUI's `modelContainer` modifier, and
    /// `mainContext.undoManager = UndoManager()` for a container made by hand; here that is
    /// `mainContext.undoManager = ModelUndoManager()`, or this property. Off by default, as there.
    @MainActor public var isUndoEnabled: Bool {
        get { mainContext.undoManager != nil }
        set {
            guard newValue != isUndoEnabled else { return }
            mainContext.undoManager = newValue ? ModelUndoManager() : nil
        }
    }
}

/// Where a container keeps its main context, made on the main actor on first use.
@MainActor final class MainContextStorage {
    var context: ModelContext?
    nonisolated init() {}
}

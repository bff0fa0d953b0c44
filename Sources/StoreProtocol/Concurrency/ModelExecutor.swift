import Dispatch
import Foundation

/// What runs a ``ModelActor``'s work and owns its ``ModelContext``: SwiftData's `ModelExecutor`.
///
/// Read the context through the actor's ``ModelActor/modelContext``, not through the executor.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the actor's work uses. Use it only from the actor that owns this executor.
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` that runs one job at a time: SwiftData's `SerialModelExecutor`, the kind
/// an actor can use as its executor.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor `@ModelActor` gives an actor: a serial queue of its own, with the context the
/// actor's work uses. SwiftData's `DefaultSerialModelExecutor`.
///
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelContainer: ModelContainer
///     nonisolated let modelExecutor: any ModelExecutor
///     init(modelContainer: ModelContainer) {
///         self.modelContainer = modelContainer
///         modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///     }
/// }
/// ```
///
/// `@ModelActor` writes that for you. Jobs run in the order enqueued, one at a time, on a
/// dispatch queue of this executor's own (not the main thread), so the context is used by one
/// thread at a time.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // @unchecked: `modelContext` is not Sendable; it is used only by jobs this executor runs,
    // one at a time, which is what makes the actor that owns the executor safe.

    /// The context the actor's work uses.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// An executor whose jobs use `modelContext`; the context must not be used elsewhere.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        queue = DispatchQueue(label: "DefaultSerialModelExecutor")
    }

    /// Runs `job` after the jobs enqueued before it, on this executor's queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor, for the actor that runs on it.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// The steps of a round, in order. Each step that writes ends in one save of one side.
public enum SyncPhase: String, Sendable, CaseIterable {
    /// Dating the local side's own saves since the last round: their per-attribute clocks.
    case stampLocal
    /// Reading the remote's history and rows after this replica's pull position.
    case pullRead
    /// The local save that applies them, with the new pull position.
    case pullSave
    /// Reading the local history and rows after this replica's push position.
    case pushRead
    /// The remote save that applies them, with the new push position.
    case pushSave
}

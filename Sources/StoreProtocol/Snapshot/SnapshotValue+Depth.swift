extension SnapshotValue {
    /// The deepest nesting of arrays and objects a stored value may have: 512 levels, the value
    /// itself being the first. ``SnapshotEncoder`` refuses a deeper `Codable` attribute with
    /// ``DataStoreError/Code/unsupportedValue`` before any store sees it, and stores that write
    /// JSON refuse deeper values too: recursing through them could overflow the stack, and a
    /// JSON reader that limits its depth could not read them back.
    public static let maximumNestingDepth = 512
}

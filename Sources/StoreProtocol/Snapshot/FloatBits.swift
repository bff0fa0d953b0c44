/// A `Float` is stored as a ``SnapshotValue/double(_:)``. Widening with `Double(_:)` is exact
/// for every number, but the hardware conversion quiets a signaling NaN (it sets the payload's
/// top bit), so a NaN is converted by its bits instead: its sign, the all-ones exponent and its
/// 23-bit payload moved to the top of the `Double`'s 52-bit one (shifted left by 29), and back
/// again (shifted right by 29). A quiet NaN converts to the same bits as the hardware gives, so
/// values stored before this conversion existed read back as they did.
extension Float {
    /// `self` as a `Double`, exactly: a NaN keeps its sign, its signaling bit and its payload.
    @inlinable
    var bitExactDouble: Double {
        guard isNaN else { return Double(self) }
        let bits = UInt64(bitPattern)
        return Double(bitPattern: (bits >> 31) << 63 | 0x7FF << 52 | (bits & 0x7F_FFFF) << 29)
    }

    /// The `Float` whose ``bitExactDouble`` is `double`, for a NaN whose payload's top 23 bits
    /// are not all zero; otherwise `Float(double)` (the nearest `Float`, or a quiet NaN).
    @inlinable
    init(bitExact double: Double) {
        let bits = double.bitPattern
        let payload = UInt32(truncatingIfNeeded: bits >> 29) & 0x7F_FFFF
        // A payload of zero would spell an infinity: such a NaN (never written for a Float) is
        // converted by the hardware instead.
        guard double.isNaN, payload != 0 else { self = Float(double); return }
        self.init(bitPattern: UInt32(truncatingIfNeeded: bits >> 63) << 31 | 0xFF << 23 | payload)
    }
}

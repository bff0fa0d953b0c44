extension Schema {
    /// A schema's version, as SwiftData's `Schema.Version`: `Schema.Version(2, 0, 0)`. Versions
    /// order by major, then minor, then patch; a store refuses to open with a schema whose version
    /// is below the one it holds.
    public struct Version: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The first number, compared first.
        public var major: Int
        /// The second number.
        public var minor: Int
        /// The third number, compared last.
        public var patch: Int

        /// `Schema.Version(2, 0, 0)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }
    }
}

extension Schema {
    /// A schema's version, as SwiftData's `Schema.Version`: `Schema.Version(2, 0, 0)`. Versions
    /// order by major, then minor, then patch; a store refuses to open with a schema whose version
    /// is below the one it holds.
    public struct Version: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public var patch: Int

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

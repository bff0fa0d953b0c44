/// One check of the store contract: a value with a name, the capabilities it needs (or needs
/// missing), and a `run` that throws a ``ConformanceFailure`` naming what it expected and saw.
public struct ConformanceCase: Sendable, CustomStringConvertible {
    /// The part of the contract: "crud", "fetching", "history", …
    public let area: String
    /// The case's name within its area, such as "deletesAreSaved".
    public let name: String
    /// The case runs only on stores with all of these.
    public let requires: StoreCapabilities
    /// The case runs only on stores with none of these (it checks a refusal).
    public let lacks: StoreCapabilities
    /// Runs the case on a target; throws a ``ConformanceFailure`` when the store breaks the rule (or
    /// whatever error the store threw that the case did not expect). A target made with
    /// ``ConformanceTarget/init(name:capabilities:makeFileConfiguration:)`` gets a folder for the
    /// case, removed when the case ends.
    public let run: @Sendable (ConformanceTarget) async throws -> Void

    /// Makes a case from its parts, as given; by default it runs on every store.
    public init(
        area: String, name: String, requires: StoreCapabilities = [], lacks: StoreCapabilities = [],
        run: @escaping @Sendable (ConformanceTarget) async throws -> Void
    ) {
        self.area = area
        self.name = name
        self.requires = requires
        self.lacks = lacks
        self.run = { target in try await target.inCaseFolder(run) }
    }

    /// Whether the case applies to a store with `capabilities`.
    public func applies(to capabilities: StoreCapabilities) -> Bool {
        capabilities.isSuperset(of: requires) && capabilities.isDisjoint(with: lacks)
    }

    public var description: String { "\(area)/\(name)" }
}

import DataStores
import Foundation
import Testing

/// An enum with a case named as `Optional`'s: `= .none` must be this case.
enum Visibility: Codable, Sendable, Equatable {
    case none, friends, everyone
}

/// Initial values that name an implicit member of the written type, and one with no written type.
@Model final class Profile {
    var visibility: Visibility = .none
    var shownTo: Visibility? = .friends
    var hiddenFrom: Visibility? = nil
    var visits = 3

    init() {}
}

@Suite struct TypedDefaultsTests {
    /// The schema's default of each attribute, by name.
    func defaults<M: PersistentModel>(of type: M.Type) throws -> [String: SnapshotValue?] {
        let entity = try #require(Schema([type]).entity(for: type))
        return Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, $0.defaultValue) })
    }

    @Test func anImplicitMemberInitialValueIsTheWrittenTypesMember() throws {
        let defaults = try defaults(of: Profile.self)
        let none = try #require(defaults["visibility"] ?? nil, "`= .none` gave no default: it was read as Optional.none")
        #expect(try SnapshotDecoder().decode(Visibility.self, from: none) == .none)
        let friends = try #require(defaults["shownTo"] ?? nil)
        #expect(try SnapshotDecoder().decode(Visibility.self, from: friends) == .friends)
        #expect(defaults["hiddenFrom"] == .some(nil))
        #expect(defaults["visits"] == .some(.int(3)))
    }
}

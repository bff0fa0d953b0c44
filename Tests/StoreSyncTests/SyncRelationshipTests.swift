import DataStores
import Foundation
@testable import StoreSync
import Testing

/// Relationships reconnect by identity: a to-one (and the to-many that follows it as its
/// inverse) by the to-one's clock, a to-many without a to-one inverse member by member.
@Suite struct SyncRelationshipTests {
    private func folderNames(of note: PersistentIdentifier, in replica: Replica) throws -> String? {
        try replica.note(note)?.folder?.name
    }

    private func noteTitles(in folder: PersistentIdentifier, of replica: Replica) throws -> [String] {
        let context = ModelContext(replica.container)
        return ((try context.model(for: folder) as? SyncFolder)?.notes.map(\.title) ?? []).sorted()
    }

    /// The note is inserted before its folder in one save: the folder arrives after the note
    /// that names it, and both sides of the relationship hold.
    @Test(arguments: SyncBackend.allCases)
    func aModelAndTheOneItNamesArriveTogether(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        let (note, folder) = try a.edit { context in
            let note = SyncNote(title: "n")
            context.insert(note)
            let folder = SyncFolder(name: "inbox")
            note.folder = folder
            return (note.persistentModelID, folder.persistentModelID)
        }
        try await a.sync()
        try await b.sync()
        #expect(try folderNames(of: note, in: b) == "inbox")
        #expect(try noteTitles(in: folder, of: b) == ["n"])
    }

    /// Both move one note to another folder; the later move wins on every replica, and each
    /// folder's notes follow. Sabotage checked: without `keepFollowersInStep`, the losing folder
    /// keeps the note among its notes on b.
    @Test(arguments: SyncBackend.allCases)
    func concurrentMovesKeepBothSidesInStep(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let clock = ManualClock()
        let a = try world.replica("a", configuration: clock.driving()), b = try world.replica("b", configuration: clock.driving())
        let (note, home, toA, toB) = try a.edit { context in
            let home = SyncFolder(name: "home"), toA = SyncFolder(name: "a's"), toB = SyncFolder(name: "b's")
            for folder in [home, toA, toB] { context.insert(folder) }
            let note = SyncNote(title: "n")
            context.insert(note)
            note.folder = home
            return (note.persistentModelID, home.persistentModelID, toA.persistentModelID, toB.persistentModelID)
        }
        try await a.sync()
        try await b.sync()
        try a.edit { context in
            (try context.model(for: note) as? SyncNote)?.folder = try context.model(for: toA) as? SyncFolder
        }
        try await a.replicator.pull()
        clock.advance()
        try b.edit { context in
            (try context.model(for: note) as? SyncNote)?.folder = try context.model(for: toB) as? SyncFolder
        }
        try await b.sync()
        try await a.sync()
        try await b.sync()
        for replica in [a, b] {
            #expect(try folderNames(of: note, in: replica) == "b's")
            #expect(try noteTitles(in: toB, of: replica) == ["n"])
            #expect(try noteTitles(in: toA, of: replica) == [])
            #expect(try noteTitles(in: home, of: replica) == [])
        }
    }

    /// Tags (a to-many without inverse) merge per member: concurrent additions both survive, and
    /// a removal travels. Sabotage checked: writing the incoming array whole keeps only one tag.
    @Test(arguments: SyncBackend.allCases)
    func concurrentAdditionsOfMembersBothSurvive(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        let (note, red) = try a.edit { context in
            let note = SyncNote(title: "n"), red = SyncTag(label: "red")
            context.insert(note)
            context.insert(red)
            context.insert(SyncTag(label: "blue"))
            return (note.persistentModelID, red.persistentModelID)
        }
        try await a.sync()
        try await b.sync()
        try a.edit { context in
            let note = try #require(try context.model(for: note) as? SyncNote)
            note.tags.append(try #require(try context.model(for: red) as? SyncTag))
        }
        try b.edit { context in
            let note = try #require(try context.model(for: note) as? SyncNote)
            let blue = try #require(try context.fetch(FetchDescriptor<SyncTag>(predicate: #Predicate { $0.label == "blue" })).first)
            note.tags.append(blue)
        }
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for replica in [a, b] { #expect(try replica.note(note)?.tags.map(\.label).sorted() == ["blue", "red"]) }

        try b.edit { context in
            let note = try #require(try context.model(for: note) as? SyncNote)
            note.tags.removeAll { $0.label == "red" }
        }
        try await b.sync()
        try await a.sync()
        for replica in [a, b] { #expect(try replica.note(note)?.tags.map(\.label) == ["blue"]) }
    }

    /// A member removed and added back by two saves with no round between them is not dated:
    /// the history names the relationship a save changed, not the member, and the member's net
    /// state is unchanged, so an older removal of it made elsewhere wins (the limitation that
    /// "The merge rules" in SyncingWithAServer.md states). A round between the two saves dates
    /// each, and the later re-add wins. Found by an adversary (2026-11-29).
    @Test(arguments: SyncBackend.allCases)
    func aMemberRemovedAndAddedBackIsDatedOnlyByARoundBetween(_ backend: SyncBackend) async throws {
        for roundBetween in [false, true] {
            let world = try SyncWorld(backend)
            let clock = ManualClock()
            let a = try world.replica("a", configuration: clock.driving()), b = try world.replica("b", configuration: clock.driving())
            let (note, red) = try a.edit { context in
                let note = SyncNote(title: "n"), red = SyncTag(label: "red")
                context.insert(note)
                context.insert(red)
                note.tags.append(red)
                return (note.persistentModelID, red.persistentModelID)
            }
            try await a.sync()
            try await b.sync()
            clock.advance()
            try a.edit { context in try #require(try context.model(for: note) as? SyncNote).tags.removeAll() }
            try await a.sync()   // a's removal, dated now
            clock.advance()
            try b.edit { context in try #require(try context.model(for: note) as? SyncNote).tags.removeAll() }
            if roundBetween { try await b.sync() }
            clock.advance()
            try b.edit { context in
                let note = try #require(try context.model(for: note) as? SyncNote)
                note.tags.append(try #require(try context.model(for: red) as? SyncTag))
            }
            try await b.sync()
            try await a.sync()
            try await b.sync()
            for replica in [a, b] {
                #expect(try replica.note(note)?.tags.map(\.label) == (roundBetween ? ["red"] : []), "round between: \(roundBetween)")
            }
        }
    }

    /// A deleted folder (nullify) lets go of its notes on every replica.
    @Test(arguments: SyncBackend.allCases)
    func deletingTheOneSideReleasesTheOther(_ backend: SyncBackend) async throws {
        let world = try SyncWorld(backend)
        let a = try world.replica("a"), b = try world.replica("b")
        let (note, folder) = try a.edit { context in
            let folder = SyncFolder(name: "old")
            context.insert(folder)
            let note = SyncNote(title: "n")
            context.insert(note)
            note.folder = folder
            return (note.persistentModelID, folder.persistentModelID)
        }
        try await a.sync()
        try await b.sync()
        try b.edit { context in
            if let folder = try context.model(for: folder) as? SyncFolder { context.delete(folder) }
        }
        try await b.sync()
        try await a.sync()
        #expect(try a.note(note) != nil)
        #expect(try a.note(note)?.folder == nil)
        #expect(try ModelContext(a.container).model(for: folder) == nil)
    }
}

import DataStores
import Foundation
import MemoryStore
@testable import StoreProtocol
import Testing

/// A save's passes share one change scan: ``RegistrationTable/mayHaveChanged(inOrder:)`` answers
/// from its last look while nothing that could change the answer happened since. These tests run
/// varied histories of changes three ways (answering from the last look, with the table checked
/// against a full reference after every step; answering from the last look; scanning every time,
/// as before the look was kept) and require the same saves, stored rows and pending changes.
@Model final class ScanFolder {
    @Attribute(.unique) var title: String
    var rank: Int
    @Relationship(deleteRule: .cascade, inverse: \ScanItem.folder) var items: [ScanItem] = []
    init(title: String, rank: Int = 0) {
        self.title = title
        self.rank = rank
    }
}

@Model final class ScanItem {
    var label: String
    var folder: ScanFolder?
    init(label: String) { self.label = label }
}

/// An entity without relationships, as the benchmarks' trips.
@Model final class ScanNote {
    var text: String
    var weight: Double?
    init(text: String, weight: Double? = nil) {
        self.text = text
        self.weight = weight
    }
}

/// Holds notes it refuses to lose: deleting a shelf that still holds one throws at the save.
@Model final class ScanShelf {
    var name: String
    @Relationship(deleteRule: .deny) var notes: [ScanNote] = []
    init(name: String) { self.name = name }
}

/// One run of a history: its container and context, the models the steps name, and what each
/// step left (pending changes, the error a step threw, the rows a fresh context reads).
final class ScanRun {
    enum Mode: CaseIterable { case reusingChecked, reusing, scanningEveryTime }

    let container: ModelContainer
    var context: ModelContext
    let mode: Mode
    var folders: [String: ScanFolder] = [:]
    var items: [String: ScanItem] = [:]
    var notes: [String: ScanNote] = [:]
    var shelves: [String: ScanShelf] = [:]
    var log: [String] = []
    private var observer: (any NSObjectProtocol)?

    init(_ mode: Mode) throws {
        self.mode = mode
        container = try ModelContainer(for: ScanFolder.self, ScanItem.self, ScanNote.self, ScanShelf.self,
                                       configurations: MemoryStoreConfiguration())
        context = ModelContext(container)
        context.registrations.reusesLastLook = mode != .scanningEveryTime
        observe()
    }

    /// A new context (the models held so far are another context's now).
    func newContext() {
        context = ModelContext(container)
        context.registrations.reusesLastLook = mode != .scanningEveryTime
        folders = [:]
        items = [:]
        notes = [:]
        shelves = [:]
        observe()
    }

    private func observe() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        // Posted synchronously on the saving thread: appended in order.
        nonisolated(unsafe) let run = self
        observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            let info = note.userInfo as? [String: [PersistentIdentifier]] ?? [:]
            run.log.append("saved inserted \(run.names(info["insertedIdentifiers"] ?? [])) updated \(run.names(info["updatedIdentifiers"] ?? [])) deleted \(run.names(info["deletedIdentifiers"] ?? []))")
        }
    }

    deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

    /// Identifiers are random per run: named by the models' titles, as stored or held.
    private func names(_ identifiers: [PersistentIdentifier]) -> String {
        identifiers.map { id in
            if let model = context.registeredModel(for: id) as ScanFolder? { return "F:\(model.title)" }
            if let model = context.registeredModel(for: id) as ScanItem? { return "I:\(model.label)" }
            if let model = context.registeredModel(for: id) as ScanNote? { return "N:\(model.text)" }
            if let model = context.registeredModel(for: id) as ScanShelf? { return "S:\(model.name)" }
            return "\(id.entityName):gone"
        }.sorted().joined(separator: ",")
    }

    private func describe(_ model: any PersistentModel) -> String {
        switch model {
        case let folder as ScanFolder: "F:\(folder.title)/\(folder.rank)"
        case let item as ScanItem: "I:\(item.label)"
        case let note as ScanNote: "N:\(note.text)"
        case let shelf as ScanShelf: "S:\(shelf.name)"
        default: "?"
        }
    }

    /// Runs a step and records what it left.
    func step(_ name: String, _ body: (ScanRun) throws -> Void) {
        do { try body(self) } catch let error as ModelContextError {
            log.append("\(name) threw \(error.code)")
        } catch {
            log.append("\(name) threw \(type(of: error))")
        }
        if mode == .reusingChecked { checkAgainstReference(name) }
        log.append("\(name): changes \(context.hasChanges) inserted \(context.insertedModelsArray.map(describe).sorted()) "
            + "changed \(context.changedModelsArray.map(describe).sorted()) deleted \(context.deletedModelsArray.map(describe).sorted())")
        log.append("\(name): stored \(stored())")
    }

    /// The look's answer against every registration not settled, in order, and the look asked
    /// twice (the second answers from the first).
    private func checkAgainstReference(_ name: String) {
        let reference = context.registrations.byIdentifier.values.filter { !$0.isSettled }.sorted { $0.order < $1.order }.map(ObjectIdentifier.init)
        let unordered = context.registrations.mayHaveChanged(inOrder: false).map(ObjectIdentifier.init)
        let ordered = context.registrations.mayHaveChanged().map(ObjectIdentifier.init)
        let again = context.registrations.mayHaveChanged().map(ObjectIdentifier.init)
        #expect(Set(unordered) == Set(reference), "after \(name): the unordered look")
        #expect(ordered == reference, "after \(name): the ordered look")
        #expect(again == reference, "after \(name): the look after a look")
    }

    /// What a fresh context reads, by titles and labels.
    func stored() -> String {
        let fresh = ModelContext(container)
        let folders = ((try? fresh.fetch(FetchDescriptor<ScanFolder>())) ?? [])
            .map { "\($0.title)/\($0.rank)[\($0.items.map(\.label).sorted().joined(separator: ","))]" }.sorted()
        let items = ((try? fresh.fetch(FetchDescriptor<ScanItem>())) ?? []).map { "\($0.label)>\($0.folder?.title ?? "-")" }.sorted()
        let notes = ((try? fresh.fetch(FetchDescriptor<ScanNote>())) ?? []).map { "\($0.text)/\($0.weight.map { "\($0)" } ?? "nil")" }.sorted()
        let shelves = ((try? fresh.fetch(FetchDescriptor<ScanShelf>())) ?? [])
            .map { "\($0.name)[\($0.notes.map(\.text).sorted().joined(separator: ","))]" }.sorted()
        return "\(folders) \(items) \(notes) \(shelves)"
    }
}

/// A history of changes: named steps over a run.
struct ScanHistory: CustomTestStringConvertible, Sendable {
    let name: String
    let steps: @Sendable (ScanRun) -> Void
    var testDescription: String { name }

    static let all: [ScanHistory] = [
        ScanHistory(name: "new models linked only through relationships") { run in
            run.step("insert a folder") { run in
                let folder = ScanFolder(title: "A")
                run.folders["A"] = folder
                run.context.insert(folder)
            }
            run.step("an item reaches it through its to-one") { run in
                let item = ScanItem(label: "a1")
                item.folder = run.folders["A"]
                run.items["a1"] = item
            }
            run.step("save") { try $0.context.save() }
            run.step("a new item appended to the held folder") { run in
                let item = ScanItem(label: "a2")
                run.items["a2"] = item
                run.folders["A"]?.items.append(item)
            }
            run.step("a new folder takes a held item") { run in
                let folder = ScanFolder(title: "B")
                run.folders["B"] = folder
                if let item = run.items["a1"] { folder.items.append(item) }
            }
            run.step("save") { try $0.context.save() }
            run.step("save with nothing changed") { try $0.context.save() }
        },
        ScanHistory(name: "models changed then changed back") { run in
            run.step("insert") { run in
                for index in 0..<20 {
                    let note = ScanNote(text: "n\(index)", weight: index.isMultiple(of: 3) ? nil : Double(index))
                    run.notes["n\(index)"] = note
                    run.context.insert(note)
                }
            }
            run.step("save") { try $0.context.save() }
            run.step("change one and back") { run in
                run.notes["n1"]?.text = "changed"
                run.notes["n1"]?.text = "n1"
            }
            run.step("save, nothing to write") { try $0.context.save() }
            run.step("change two, one back") { run in
                run.notes["n2"]?.weight = .nan
                run.notes["n4"]?.text = "n4!"
                run.notes["n2"]?.weight = 2
            }
            run.step("save") { try $0.context.save() }
            run.step("change after the save") { run in run.notes["n4"]?.weight = nil }
            run.step("save") { try $0.context.save() }
            run.step("a fresh context changes fetched notes") { run in
                run.newContext()
                for note in try run.context.fetch(FetchDescriptor<ScanNote>()) where note.text.hasSuffix("5") {
                    note.text = "fifteen or five"
                    note.text = note.text + "!"
                }
            }
            run.step("save") { try $0.context.save() }
        },
        ScanHistory(name: "deletes with cascades") { run in
            run.step("insert folders with items") { run in
                for title in ["A", "B"] {
                    let folder = ScanFolder(title: title)
                    run.folders[title] = folder
                    run.context.insert(folder)
                    for index in 0..<3 {
                        let item = ScanItem(label: "\(title)\(index)")
                        run.items[item.label] = item
                        folder.items.append(item)
                    }
                }
            }
            run.step("save") { try $0.context.save() }
            run.step("delete a folder, change an item of another") { run in
                if let folder = run.folders["A"] { run.context.delete(folder) }
                run.items["B1"]?.label = "B1'"
            }
            run.step("save") { try $0.context.save() }
            run.step("move an item, delete the other folder") { run in
                let folder = ScanFolder(title: "C")
                run.folders["C"] = folder
                run.context.insert(folder)
                if let item = run.items["B0"] { item.folder = folder }
                if let folder = run.folders["B"] { run.context.delete(folder) }
            }
            run.step("save") { try $0.context.save() }
            run.step("delete a new model before its save") { run in
                let item = ScanItem(label: "new")
                run.folders["C"]?.items.append(item)
                run.context.delete(item)
            }
            run.step("save") { try $0.context.save() }
            run.step("insert two notes") { run in
                for text in ["kept", "dropped"] {
                    let note = ScanNote(text: text)
                    run.notes[text] = note
                    run.context.insert(note)
                }
            }
            // After a look (each step's log looks): the table forgets a registration, and nothing else changes.
            run.step("delete one of them before its save") { run in
                if let note = run.notes["dropped"] { run.context.delete(note) }
            }
            run.step("save") { try $0.context.save() }
        },
        ScanHistory(name: "rollback") { run in
            run.step("insert") { run in
                let folder = ScanFolder(title: "A", rank: 1)
                run.folders["A"] = folder
                run.context.insert(folder)
                let note = ScanNote(text: "kept")
                run.notes["kept"] = note
                run.context.insert(note)
            }
            run.step("save") { try $0.context.save() }
            run.step("change, insert, delete") { run in
                run.folders["A"]?.rank = 9
                let item = ScanItem(label: "dropped")
                item.folder = run.folders["A"]
                run.context.insert(ScanNote(text: "dropped"))
                if let note = run.notes["kept"] { run.context.delete(note) }
            }
            run.step("rollback") { $0.context.rollback() }
            run.step("save after the rollback") { try $0.context.save() }
            run.step("change again") { run in run.folders["A"]?.rank = 2 }
            run.step("save") { try $0.context.save() }
        },
        ScanHistory(name: "a save that throws and is retried") { run in
            run.step("insert a shelf with notes") { run in
                let shelf = ScanShelf(name: "S")
                run.shelves["S"] = shelf
                run.context.insert(shelf)
                for text in ["x", "y"] {
                    let note = ScanNote(text: text)
                    run.notes[text] = note
                    shelf.notes.append(note)
                }
            }
            run.step("save") { try $0.context.save() }
            run.step("delete the shelf, change a note, insert a note") { run in
                if let shelf = run.shelves["S"] { run.context.delete(shelf) }
                run.notes["x"]?.text = "x'"
                run.context.insert(ScanNote(text: "z"))
            }
            run.step("save refused") { try $0.context.save() }
            run.step("save refused again") { try $0.context.save() }
            run.step("empty the shelf") { run in run.shelves["S"]?.notes = [] }
            run.step("save retried") { try $0.context.save() }
            run.step("save with nothing changed") { try $0.context.save() }
        },
        ScanHistory(name: "upserts on a unique attribute") { run in
            run.step("insert") { run in
                let folder = ScanFolder(title: "A", rank: 1)
                run.folders["A"] = folder
                run.context.insert(folder)
                let item = ScanItem(label: "a1")
                folder.items.append(item)
            }
            run.step("save") { try $0.context.save() }
            run.step("insert the same title, held") { run in
                let folder = ScanFolder(title: "A", rank: 2)
                run.context.insert(folder)
                let item = ScanItem(label: "a2")
                folder.items.append(item)
            }
            run.step("save") { try $0.context.save() }
            run.step("insert the same title, in a context that does not hold it") { run in
                run.newContext()
                let folder = ScanFolder(title: "A", rank: 3)
                run.context.insert(folder)
                run.context.insert(ScanFolder(title: "B", rank: 4))
            }
            run.step("save") { try $0.context.save() }
            run.step("two inserts of one title in one save") { run in
                run.context.insert(ScanFolder(title: "C", rank: 5))
                run.context.insert(ScanFolder(title: "C", rank: 6))
            }
            run.step("save") { try $0.context.save() }
        },
        ScanHistory(name: "undo") { run in
            run.step("set an undo manager, insert") { run in
                run.context.undoManager = ModelUndoManager()
                let note = ScanNote(text: "u")
                run.notes["u"] = note
                run.context.insert(note)
            }
            run.step("save") { try $0.context.save() }
            run.step("change") { run in run.notes["u"]?.text = "u'" }
            run.step("save") { try $0.context.save() }
            run.step("undo") { run in run.context.undoManager?.undo() }
            run.step("save") { try $0.context.save() }
        },
    ]
}

@Suite struct ChangeScanTests {
    /// Each history leaves the same log however the context looks for changes, and the look
    /// answers as a full scan after every step.
    @Test(arguments: ScanHistory.all)
    func aSaveStoresWhatAScanEveryTimeStores(_ history: ScanHistory) throws {
        var logs: [ScanRun.Mode: [String]] = [:]
        for mode in ScanRun.Mode.allCases {
            let run = try ScanRun(mode)
            history.steps(run)
            logs[mode] = run.log
        }
        let reference = logs[.scanningEveryTime] ?? []
        #expect(reference.contains { $0.hasPrefix("saved ") }, "the history saves something")
        for mode in [ScanRun.Mode.reusingChecked, .reusing] {
            let log = logs[mode] ?? []
            #expect(log.count == reference.count)
            for (line, expected) in zip(log, reference) where line != expected {
                Issue.record("\(mode): \(line)\nexpected: \(expected)")
                break
            }
        }
    }

    /// The look after a look answers from it; a change logged since, a delete (which unsettles
    /// without a log) and a save (which settles) each make it look again.
    @Test func aLookAfterALookSeesWhatChangedBetween() throws {
        let container = try ModelContainer(for: ScanNote.self, configurations: MemoryStoreConfiguration())
        let context = ModelContext(container)
        let notes = (0..<4).map { ScanNote(text: "n\($0)") }
        for note in notes { context.insert(note) }
        try context.save()
        #expect(context.registrations.mayHaveChanged().isEmpty)
        notes[1].text = "changed"
        #expect(context.registrations.mayHaveChanged().map(\.model).map(ObjectIdentifier.init) == [ObjectIdentifier(notes[1])])
        context.delete(notes[2])
        #expect(Set(context.registrations.mayHaveChanged().map(\.model).map(ObjectIdentifier.init))
            == [ObjectIdentifier(notes[1]), ObjectIdentifier(notes[2])])
        notes[3].weight = 3
        #expect(context.registrations.mayHaveChanged().count == 3)
        try context.save()
        #expect(context.registrations.mayHaveChanged().isEmpty, "the saved models settled")
        notes[0].text = "again"
        #expect(context.registrations.mayHaveChanged().count == 1)
        #expect(context.hasChanges)
        // A save with no delete: nothing but the settling of what it saved changes the table.
        try context.save()
        #expect(context.registrations.mayHaveChanged().isEmpty, "the saved change settled")
        #expect(!context.hasChanges)
        let inserted = ScanNote(text: "inserted after a look")
        let dropped = ScanNote(text: "inserted and deleted after a look")
        context.insert(inserted)
        context.insert(dropped)
        #expect(context.registrations.mayHaveChanged().count == 2)
        // A new model deleted is forgotten: the table changes, and the model's state does not.
        context.delete(dropped)
        #expect(context.registrations.mayHaveChanged().map(\.model).map(ObjectIdentifier.init) == [ObjectIdentifier(inserted)])
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ScanNote>()) == 4)
    }
}

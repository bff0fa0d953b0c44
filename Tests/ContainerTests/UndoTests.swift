import Foundation
import MemoryStore
import StoreConformance
import StoreProtocol
import Testing

/// Undo and redo of each kind of change (issue 16), then saved: the store holds the net effect.
@Suite struct UndoTests {
    let container: ModelContainer
    let context: ModelContext
    let iceland: SuiteVoyage
    let chile: SuiteVoyage

    init() throws {
        container = try ModelContainer(for: Schema(ConformanceModels.types), configurations: [MemoryStoreConfiguration()])
        let seed = ModelContext(container)
        let iceland = SuiteVoyage(name: "Iceland")
        let geysir = SuiteBucketItem(title: "Geysir")
        seed.insert(iceland)
        seed.insert(SuiteVoyage(name: "Chile"))
        seed.insert(geysir)
        geysir.voyage = iceland
        try seed.save()
        context = ModelContext(container)
        context.undoManager = ModelUndoManager()
        let voyages = try context.fetch(FetchDescriptor<SuiteVoyage>(sortBy: [SortDescriptor(\.name)]))
        (chile, self.iceland) = (voyages[0], voyages[1])
    }

    /// The stored voyages and their items' titles, read by a fresh context.
    func stored() throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<SuiteVoyage>(sortBy: [SortDescriptor(\.name)])).map { voyage in
            "\(voyage.name): \(voyage.bucketList.map(\.title).sorted().joined(separator: ","))"
        }
    }

    func transactions() throws -> Int {
        try container.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count
    }

    @Test func anAttributeChangeIsUndoneAndRedone() throws {
        iceland.name = "Iceland in June"
        try context.processPendingChanges()
        let undoManager = try #require(context.undoManager)
        #expect(undoManager.canUndo)
        undoManager.undo()
        #expect(iceland.name == "Iceland")
        #expect(!context.hasChanges)
        #expect(undoManager.canRedo)
        undoManager.redo()
        #expect(iceland.name == "Iceland in June")
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland in June: Geysir"])
    }

    @Test func anInsertIsUndoneAndRedone() throws {
        let peru = SuiteVoyage(name: "Peru")
        context.insert(peru)
        try context.processPendingChanges()
        context.undoManager?.undo()
        #expect(!context.hasChanges, "the insert is undone")
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"])
        context.undoManager?.redo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Peru: "])
    }

    @Test func aDeleteIsUndoneBeforeAndAfterItIsSaved() throws {
        context.delete(chile)
        try context.processPendingChanges()
        context.undoManager?.undo()
        #expect(!context.hasChanges)
        let before = try transactions()
        try context.save()
        #expect(try transactions() == before, "nothing to save")

        context.delete(chile)
        try context.save()
        #expect(try stored() == ["Iceland: Geysir"])
        context.undoManager?.undo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"], "the deleted voyage is stored again")
    }

    @Test func aSavedChangeUndoneIsSavedBackAndHistoryShowsBoth() throws {
        let before = try transactions()
        iceland.name = "Reykjavík"
        try context.save()
        context.undoManager?.undo()
        #expect(iceland.name == "Iceland")
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"], "the net effect")
        #expect(try transactions() == before + 2, "the change and its undoing")
    }

    @Test func aRelationshipChangeIsUndoneWithItsInverse() throws {
        let geysir = try #require(iceland.bucketList.first)
        geysir.voyage = chile
        try context.processPendingChanges()
        #expect(chile.bucketList.map(\.title) == ["Geysir"] && iceland.bucketList.isEmpty, "the inverse followed")
        context.undoManager?.undo()
        #expect(geysir.voyage === iceland)
        #expect(iceland.bucketList.map(\.title) == ["Geysir"])
        #expect(chile.bucketList.isEmpty)
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"])
        context.undoManager?.redo()
        try context.save()
        #expect(try stored() == ["Chile: Geysir", "Iceland: "])
    }

    /// Saving is not a change to undo: after a save and an empty group, undo still undoes the insert.
    @Test func aSaveIsNotAnUndoStep() throws {
        context.insert(SuiteVoyage(name: "Peru"))
        try context.save()
        try context.processPendingChanges()
        context.undoManager?.undo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"])
    }

    /// Issue 28, defect 6: an undo right after a change, before any group closed it, undoes that
    /// change, not the group before it (the saved insert, which the next save would delete).
    @Test func anUndoRightAfterAChangeUndoesThatChange() throws {
        let peru = SuiteVoyage(name: "Peru")
        context.insert(peru)
        try context.save()
        peru.name = "Peru in May"
        let undoManager = try #require(context.undoManager)
        #expect(undoManager.canUndo)
        undoManager.undo()
        #expect(peru.name == "Peru", "the rename is undone")
        #expect(!context.hasChanges, "the insert is not undone")
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Peru: "])
        #expect(undoManager.canRedo)
        undoManager.redo()
        #expect(peru.name == "Peru in May", "the rename is redone")
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Peru in May: "])
    }

    /// Issue 31: a new model whose only link is its own to-one to a saved, unchanged model
    /// (`reef.voyage = tahiti`) is a change: an undo right after it undoes it, not the group
    /// before (the saved insert of Tahiti, which the next save then deleted).
    @Test func anUndoRightAfterANewModelRefersToASavedOneUndoesThat() throws {
        let tahiti = SuiteVoyage(name: "Tahiti")
        context.insert(tahiti)
        try context.save()
        let reef = SuiteBucketItem(title: "Reef")
        reef.voyage = tahiti
        let undoManager = try #require(context.undoManager)
        undoManager.undo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Tahiti: "], "Tahiti stays; the reef is not saved")
        undoManager.redo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Tahiti: Reef"])
    }

    /// Issue 31: the same link, saved without undo: the new model is inserted with the stored
    /// one it refers to, as SwiftData inserts a model's graph.
    @Test func aNewModelReferringToASavedOneIsSaved() throws {
        let reef = SuiteBucketItem(title: "Reef")
        reef.voyage = chile
        try context.save()
        #expect(try stored() == ["Chile: Reef", "Iceland: Geysir"])
    }

    /// Issue 31: undoing the insert of a new related model (appended to a saved model's to-many)
    /// keeps it out of the next save: its to-one still names the voyage, and the voyage's next
    /// pass over its referrers inserted it again.
    @Test func anUndoneRelatedInsertStaysUndoneAtTheNextSave() throws {
        iceland.bucketList.append(SuiteBucketItem(title: "Lagoon"))
        let undoManager = try #require(context.undoManager)
        undoManager.undo()
        #expect(iceland.bucketList.map(\.title) == ["Geysir"])
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"])
        undoManager.redo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir,Lagoon"])
    }

    /// Undo across saves: each save closes a group, and undo walks back through saved groups,
    /// each undone change then saved as a change of its own.
    @Test func undoWalksBackAcrossSaves() throws {
        let peru = SuiteVoyage(name: "Peru")
        context.insert(peru)
        try context.save()
        peru.name = "Peru in May"
        try context.save()
        context.delete(chile)
        try context.save()
        #expect(try stored() == ["Iceland: Geysir", "Peru in May: "])
        let undoManager = try #require(context.undoManager)
        undoManager.undo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Peru in May: "])
        undoManager.undo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Peru: "])
        undoManager.undo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"])
        #expect(!undoManager.canUndo)
        undoManager.redo()
        undoManager.redo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir", "Peru in May: "])
    }

    /// A change made after an undo, not yet in a group, takes the place of what could be redone:
    /// redo then does nothing, as a change recorded after an undo clears the redo stack.
    @Test func aRedoRightAfterAChangeRedoesNothing() throws {
        iceland.name = "Iceland in June"
        try context.processPendingChanges()
        let undoManager = try #require(context.undoManager)
        undoManager.undo()
        iceland.name = "Iceland in May"
        #expect(!undoManager.canRedo, "the new change ends what could be redone")
        undoManager.redo()
        #expect(iceland.name == "Iceland in May")
        undoManager.undo()
        #expect(iceland.name == "Iceland", "undo undoes the new change")
    }

    /// Issue 28, defect 7: saving an undone cascade delete keeps the redo: redo deletes the
    /// voyage and its items again.
    @Test func aRedoSurvivesSavingAnUndoneCascadeDelete() throws {
        context.delete(iceland)
        try context.save()
        #expect(try stored() == ["Chile: "])
        let undoManager = try #require(context.undoManager)
        undoManager.undo()
        try context.save()
        #expect(try stored() == ["Chile: ", "Iceland: Geysir"], "the voyage and its item are back")
        #expect(undoManager.canRedo, "saving is not a change: the undone delete can be redone")
        undoManager.redo()
        try context.save()
        #expect(try stored() == ["Chile: "], "redone: the voyage and its item are deleted again")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<SuiteBucketItem>()) == 0)
    }

    @Test func rollbackRemovesEveryAction() throws {
        iceland.name = "Iceland in June"
        try context.processPendingChanges()
        context.rollback()
        #expect(context.undoManager?.canUndo == false)
        #expect(iceland.name == "Iceland")
    }
}

import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

@Suite struct NewOwnerOfAHeldModelTests {
    @Test(arguments: BookkeepingStore.allCases)
    func aNewModelWhoseToManyTakesAHeldModelIsSaved(_ kind: BookkeepingStore) throws {
        let open = try kind.opener()
        let context = ModelContext(try open())
        let folder = BkFolder(title: "F")
        let item = BkItem(label: "x")
        context.insert(folder)
        folder.items.append(item)
        try context.save()
        let newFolder = BkFolder(title: "G")
        newFolder.items.append(item)
        print("probe: item.folder is G: \(item.folder === newFolder); hasChanges \(context.hasChanges); inserted \(context.insertedModelsArray.count)")
        try context.save()
        let fresh = ModelContext(try open())
        let folders = try fresh.fetch(FetchDescriptor<BkFolder>()).map { "\($0.title):\($0.items.map(\.label))" }.sorted()
        let items = try fresh.fetch(FetchDescriptor<BkItem>()).map { "\($0.label)->\($0.folder?.title ?? "nil")" }
        print("probe: \(folders) \(items)")
        #expect(folders == ["F:[]", "G:[\"x\"]"])
        #expect(items == ["x->G"])
    }
}

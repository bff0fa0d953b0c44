import DataStores
import Foundation
import JSONStore
import MemoryStore
import StoreTestSupport
import Testing

/// A model's declared `id` is its primary key: every store keys its row by it. Changing the `id`
/// of a stored model and saving throws ``ModelContextError/Code/primaryKeyChanged`` and saves
/// nothing (found by an adversary: the change and every later one were silently dropped).
@Model final class LedgerAccount {
    var id: String
    var balance: Int = 0
    init(id: String) { self.id = id }
}

@Suite struct MacroModelChangedIDTests {
    @Test(arguments: ["memory", "json"])
    func savingAStoredModelWhoseIDChangedThrowsAndSavesNothing(_ backend: String) throws {
        let configuration: any DataStoreConfiguration = backend == "memory"
            ? MemoryStoreConfiguration(name: "changed-id-\(UUID())", isShared: true)
            : JSONStoreConfiguration(url: try temporaryDirectory().appending(path: "accounts.json"))
        let open = { try ModelContainer(for: Schema(LedgerAccount.self), configurations: [configuration]) }
        func stored() throws -> [String] {
            try ModelContext(try open()).fetch(FetchDescriptor<LedgerAccount>()).map { "\($0.id)=\($0.balance)" }.sorted()
        }
        let context = ModelContext(try open())
        let account = LedgerAccount(id: "acct-1")
        context.insert(account)
        try context.save()

        account.id = "acct-2"
        account.balance = 100
        let error = try #require(throws: ModelContextError.self) { try context.save() }
        #expect(error.code == .primaryKeyChanged)
        for part in ["LedgerAccount", "acct-1", "acct-2", "insert", "delete"] {
            #expect(error.message.contains(part), "\(part): \(error.message)")
        }
        #expect(try stored() == ["acct-1=0"], "nothing was saved")
        #expect(context.hasChanges, "the context keeps its changes")
        account.balance = 200
        #expect(throws: ModelContextError.primaryKeyChanged) { try context.save() }
        #expect(try stored() == ["acct-1=0"])

        // The id set back: the other changes save.
        account.id = "acct-1"
        try context.save()
        #expect(try stored() == ["acct-1=200"])
        #expect(!context.hasChanges)

        // What the message says to do: a new model with the new id, the old one deleted.
        let renamed = LedgerAccount(id: "acct-2")
        renamed.balance = account.balance
        context.insert(renamed)
        context.delete(account)
        try context.save()
        #expect(try stored() == ["acct-2=200"])
    }
}

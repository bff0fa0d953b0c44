import DataStores
import StoreTestSupport
import Testing

/// `ModelContainer(for: Trip.self)` with no configuration, in StoreTestHelper processes with
/// their own `XDG_DATA_HOME` or `HOME` (this process's environment is left alone): the default
/// store of a program is one file that all its processes share.
@Suite struct DefaultStoreTests {
    /// Runs the helper to its end; fails the test unless it exits as `expectedStatus` says.
    func runHelper(_ arguments: [String], environment: [String: String], expectedStatus: Int32 = 0) throws -> ChildProcess {
        let child = try ChildProcess(["default-store"] + arguments, environment: environment)
        let status = child.finish()
        #expect(status == expectedStatus, "StoreTestHelper default-store \(arguments): \(child.errorText)")
        return child
    }

    @Test func twoProcessesOfOneProgramShareTheDefaultStore() throws {
        let dataHome = try temporaryDirectory()
        let environment = ["XDG_DATA_HOME": dataHome.path]
        let expectedFile = dataHome.appending(path: "StoreTestHelper/default.store")

        let first = try runHelper(["write", "alice", "alpha", "beta"], environment: environment)
        #expect(first.lines == ["store \(expectedFile.path)", "wrote 2"])
        let second = try runHelper(["write", "bob", "gamma"], environment: environment)
        #expect(second.lines == ["store \(expectedFile.path)", "wrote 1"])
        // A third process reads both writers' records.
        let reader = try runHelper(["read"], environment: environment)
        #expect(reader.lines == ["record alice alpha", "record alice beta", "record bob gamma"])

        // And this process reads the file the children wrote, values and all.
        let container = try ModelContainer(for: HelperRecord.self, configurations: ModelConfiguration(url: expectedFile))
        let records = try ModelContext(container).fetch(FetchDescriptor<HelperRecord>(sortBy: [SortDescriptor(\.payload)]))
        #expect(records.map(\.payload) == ["alpha", "beta", "gamma"])
        #expect(records.map(\.author) == ["alice", "alice", "bob"])
        #expect(records.map(\.item) == [0, 1, 0])
    }

    @Test func withoutXDGDataHomeTheStoreIsUnderHome() throws {
        let home = try temporaryDirectory()
        let child = try runHelper(["write", "carol", "delta"], environment: ["HOME": home.path, "XDG_DATA_HOME": ""])
        #expect(child.lines.first == "store " + home.appending(path: ".local/share/StoreTestHelper/default.store").path)
    }

    @Test func aMissingHomeFailsNamingItAndCreatesNothing() throws {
        let parent = try temporaryDirectory()
        let home = parent.appending(path: "no-such-home")
        let child = try runHelper(["write", "dave", "epsilon"], environment: ["HOME": home.path, "XDG_DATA_HOME": ""], expectedStatus: 2)
        #expect(child.errorText.contains(home.path), "\(child.errorText)")
        #expect(child.lines.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == [])
    }
}

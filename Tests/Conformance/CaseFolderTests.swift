import Foundation
import JSONStore
import StoreConformance
import StoreProtocol
import Testing

/// A target whose stores are files gets a folder per case, removed when the case ends: a run of
/// the suite leaves nothing in the temporary directory (it left about 2,400 store files a run
/// when the documented factory named its own paths).
@Suite struct CaseFolderTests {
    @Test func aCaseRemovesTheFilesItsStoresMade() async throws {
        let locations = Locked<[URL]>([])
        let target = ConformanceTarget(name: "JSONStore", capabilities: .all) { location in
            locations.withLock { $0.append(location) }
            return JSONStoreConfiguration(url: location)
        }
        let cases = ConformanceSuite.cases(for: target).filter { $0.area == "persistence" || $0.area == "crud" }
        try #require(!cases.isEmpty)
        for check in cases { try await check.run(target) }
        let made = locations.withLock { $0 }
        try #require(!made.isEmpty)
        let folders = Set(made.map { $0.deletingLastPathComponent() })
        #expect(folders.count >= cases.count, "each case has a folder of its own")
        for folder in folders {
            #expect(folder.deletingLastPathComponent().standardizedFileURL == URL.temporaryDirectory.standardizedFileURL)
            #expect(!FileManager.default.fileExists(atPath: folder.path), "\(folder.path) is left behind")
        }
    }

    @Test func aFailingCaseRemovesItsFolderToo() async throws {
        let location = Locked<URL?>(nil)
        let target = ConformanceTarget(name: "JSONStore", capabilities: .all) { url in
            location.withLock { $0 = url }
            return JSONStoreConfiguration(url: url)
        }
        let failing = ConformanceCase(area: "test", name: "fails") { target in
            _ = try target.makeConfiguration()
            let url = try #require(location.withLock { $0 })
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data("store".utf8)))
            throw ConformanceFailure("deliberately")
        }
        await #expect(throws: ConformanceFailure.self) { try await failing.run(target) }
        let folder = try #require(location.withLock { $0 }).deletingLastPathComponent()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}

import Foundation
import Testing

/// Issue 28, the lost update across processes: two processes hold the same stored model, one
/// changes `sequence` and saves, then the other changes `writer` and saves. The store merges
/// each save's changed attributes into the row under its lock, so both changes stay, and each
/// update in history names only its own attribute.
@Suite("Two processes changing one model", .enabled(if: TestServer.isConfigured))
struct LostUpdateTests {
    @Test func twoProcessesChangingDifferentAttributesOfOneModelKeepBoth() throws {
        let url = try #require(TestServer.url)
        let namespace = TestServer.freshNamespace()
        let seed = try HelperProcess(["write", url, namespace, "0", "1"])
        #expect(seed.nextLine() == "saved 1")
        #expect(seed.wait() == 0)

        let writerChanger = try HelperProcess(["hold-and-change", url, namespace, "writer", "7"])
        let sequenceChanger = try HelperProcess(["hold-and-change", url, namespace, "sequence", "42"])
        #expect(writerChanger.nextLine() == "holding 1")
        #expect(sequenceChanger.nextLine() == "holding 1")
        try sequenceChanger.closeInput()
        #expect(sequenceChanger.nextLine() == "changed")
        #expect(sequenceChanger.wait() == 0)
        try writerChanger.closeInput()
        #expect(writerChanger.nextLine() == "changed")
        #expect(writerChanger.wait() == 0)

        let show = try HelperProcess(["show", url, namespace])
        var lines: [String] = []
        while let line = show.nextLine() { lines.append(line) }
        #expect(show.wait() == 0)
        #expect(lines == ["w0-0 writer 7 sequence 42", "updated sequence", "updated writer"])
    }
}

import Foundation
@testable import PostgresStore
import StoreProtocol
import Testing

/// `_pk` spells a UUID as `uuidString` does and reads it back; every other key goes through JSON.
@Suite("Primary key text")
struct PrimaryKeyTextTests {
    @Test("UUIDs: the text is uuidString, and it reads back (either case)")
    func uuids() throws {
        for uuid in (0..<500).map({ _ in UUID() }) + [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                                                       UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))] {
            let text = try PrimaryKeyText.text(.uuid(uuid))
            #expect(text == uuid.uuidString)
            #expect(try PrimaryKeyText.key(Array(text.utf8), table: "t") == .uuid(uuid))
            #expect(try PrimaryKeyText.key(Array(text.lowercased().utf8), table: "t") == .uuid(uuid))
        }
    }

    @Test("Other keys go through JSON and read back as themselves, including 36-character strings shaped like a UUID")
    func otherKeys() throws {
        let uuidShaped = UUID().uuidString
        for key: SnapshotValue in [.int(42), .int(-1), .string("abc"), .string(uuidShaped), .string(""), .double(1.5), .array([.int(1)])] {
            let text = try PrimaryKeyText.text(key)
            let back = try PrimaryKeyText.key(Array(text.utf8), table: "t")
            #expect(back == key && "\(back)" == "\(key)", "\(key) -> \(text) -> \(back)")
        }
    }

    @Test("Keys Swift finds equal have one text: precomposed and decomposed strings, 0.0 and -0.0, 2 and 2.0")
    func equalKeysOneText() throws {
        let pairs: [(SnapshotValue, SnapshotValue)] = [
            (.string("caf\u{E9}"), .string("cafe\u{301}")), (.double(0), .double(-0.0)), (.int(2), .double(2)),
            (.array([.string("\u{C5}"), .double(-0.0)]), .array([.string("A\u{30A}"), .int(0)])),
        ]
        for (a, b) in pairs {
            #expect(a == b)
            #expect(try PrimaryKeyText.text(a) == PrimaryKeyText.text(b), "\(a) and \(b)")
            #expect(try PrimaryKeyText.key(Array(PrimaryKeyText.text(b).utf8), table: "t") == b)
        }
        #expect(try PrimaryKeyText.text(.string("e")) != PrimaryKeyText.text(.string("\u{E9}")))
        #expect(try PrimaryKeyText.text(.double(0.5)) != PrimaryKeyText.text(.double(-0.5)))
    }

    @Test("Text that is neither spelling is a corrupt store, not a key", arguments: [
        "ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ", "01234567-89AB-CDEF-0123-456789ABCDE", "01234567+89AB-CDEF-0123-456789ABCDEF", "{", "",
    ])
    func malformed(_ text: String) {
        let error = #expect(throws: DataStoreError.self) { try PrimaryKeyText.key(Array(text.utf8), table: "t") }
        #expect(error?.code == .corruptStore)
    }
}

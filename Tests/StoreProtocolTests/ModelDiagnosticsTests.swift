import Foundation
import Testing

/// The runtime's compile-time diagnostics, which the `@Model` expansion surfaces: an unsupported
/// attribute type, `@Relationship` on a property that holds no model, an inverse that is not a
/// key path of the destination back to the model. Each bad declaration is type-checked by a
/// child `swiftc` against the built StoreProtocol module, and its message checked.
@Suite struct ModelDiagnosticsTests {
    /// The built modules' folder: beside the test bundle, `…/debug/Modules`.
    private static func modulesFolder() -> URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let modules = folder.appending(path: "Modules")
            if FileManager.default.fileExists(atPath: modules.appending(path: "StoreProtocol.swiftmodule").path) { return modules }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    private static let models = """
        import Foundation
        import StoreProtocol
        final class Item: PersistentModel, Codable {
            var id = UUID()
            var title = ""
            var trip: Trip?
            static let schemaMetadata = SchemaMetadata<Item>(attributes: [\\.id, \\.title])
        }
        final class Trip: PersistentModel, Codable {
            var id = UUID()
            var name = ""
            var items: [Item] = []
            static let schemaMetadata = SchemaMetadata<Trip>(attributes: [\\.id, \\.name])
        }
        final class NotStorable {}

        """

    /// The errors `swiftc -typecheck` gives for `source` after the models above.
    private func errors(of source: String) throws -> String {
        let modules = try #require(Self.modulesFolder(), "the built StoreProtocol module beside the test bundle")
        let file = FileManager.default.temporaryDirectory.appending(path: "diagnostic-\(UUID().uuidString).swift")
        try (Self.models + source).write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, file.path]
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = Pipe()
        try process.run()
        let output = errorPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    @Test func anUnsupportedAttributeTypeSaysWhatToStore() throws {
        let output = try errors(of: "func f() throws { _ = try ModelCoding.encode(NotStorable()) }\n")
        #expect(output.contains("error: 'encode' is unavailable: this type cannot be stored as an attribute"), "\(output)")
        #expect(output.contains("mark the property @Transient"), "\(output)")
        let decoding = try errors(of: "func f() throws -> NotStorable { try ModelCoding.decode(nil, attribute: \"a\", of: \"E\") }\n")
        #expect(decoding.contains("'decode(_:attribute:of:)' is unavailable: this type cannot be stored"), "\(decoding)")
    }

    @Test func relationshipOnAnAttributeSaysItNeedsAModel() throws {
        let output = try errors(of: "let p = SchemaProperty<Trip>.relationship(\"name\", \\Trip.name)\n")
        #expect(output.contains("is unavailable: @Relationship needs a property whose type is a model"), "\(output)")
    }

    @Test func aMistypedInverseSaysWhatAnInverseIs() throws {
        let output = try errors(of: "let p = SchemaProperty<Trip>.relationship(\"items\", \\Trip.items, inverse: \\Item.title)\n")
        #expect(output.contains("is unavailable: the inverse must be a key path of the destination model back to this model"),
                "\(output)")
        let accepted = try errors(of: "let p = SchemaProperty<Trip>.relationship(\"items\", \\Trip.items, inverse: \\Item.trip)\n")
        #expect(!accepted.contains("error:"), "\(accepted)")
    }
}

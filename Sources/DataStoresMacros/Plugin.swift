import DataStoresMacroKit
import SwiftSyntaxMacros

/// The macros this plugin provides, by the type name their declarations in `DataStores` give.
var dataStoresMacros: [String: any Macro.Type] {
    [
        "ModelMacro": ModelMacro.self,
        "PersistedPropertyMacro": PersistedPropertyMacro.self,
        "MarkerMacro": MarkerMacro.self,
        "SchemaConstraintMacro": SchemaConstraintMacro.self,
        "ModelActorMacro": ModelActorMacro.self,
    ]
}

#if canImport(SwiftCompilerPlugin)
// Built on the swift-syntax package: its convenience entry point.
import SwiftCompilerPlugin

@main
struct DataStoresMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = Array(dataStoresMacros.values)
}
#else
// Built on the toolchain's SwiftSyntax (`usr/lib/swift/host`), which does not ship
// SwiftCompilerPlugin: the same entry point, written out.
@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling

@main
struct DataStoresMacrosPlugin: PluginProvider {
    /// The plugin does not know the macro a declaration names.
    struct UnknownMacro: Error, CustomStringConvertible {
        let typeName: String
        var description: String { "DataStoresMacros provides no macro type '\(typeName)'" }
    }

    func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
        guard let macro = dataStoresMacros[typeName] else { throw UnknownMacro(typeName: typeName) }
        return macro
    }

    static func main() throws {
        let listener = CompilerPluginMessageListener(connection: try StandardIOMessageConnection(), provider: Self())
        try listener.main()
    }
}
#endif

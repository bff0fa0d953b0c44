@_spi(Reflection) import Swift

/// What the Swift runtime records about a class's stored properties, read and never written.
///
/// This is the one file of the model layer that leans on the standard library beyond its
/// documented API, in two read-only ways:
///
/// - `_forEachField` (SPI `Reflection`) lists a class's stored properties, names and types,
///   from the runtime's field records. It lists them only: nothing here touches an instance.
/// - A key path's `debugDescription` names the stored property it reaches. For a stored
///   component the standard library finds the field record at the component's offset and prints
///   its name (`\Trip.name`); any other component prints differently (`<computed …>`,
///   `<offset …>`, `?`, `!`, a second `.`).
///
/// Why it is sound: a key path is taken to name a property only when its description is exactly
/// `\` + the root type's description + `.` + one of the names `_forEachField` listed, and its value
/// type is that field's type. A description in any other form is refused, never guessed at, so a
/// change in the toolchain's printing can only make a model be refused at container creation,
/// not bind a key path to another property. `ModelShapeTests` checks the names of every shape
/// the framework accepts, so such a change fails the tests first.
enum StoredProperties {
    /// One stored property: its name as the runtime records it, and its type.
    struct Field {
        let name: String
        let type: Any.Type
    }

    /// The stored properties of `type` and of its superclasses, in declaration order.
    static func of(_ type: AnyClass) -> [Field] {
        var fields: [Field] = []
        // Raw value 1 is `_EachFieldOptions.classType`, spelled out because the static is a `var`.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, _, valueType, _ in
            fields.append(Field(name: String(cString: name), type: valueType))
            return true
        }
        return fields
    }

    /// The stored property of `Root` that `keyPath` reaches in one step, `nil` when it reaches
    /// something else: a computed property, a property behind accessors (weak, unowned, lazy,
    /// observed, wrapped), a nested property, or a property of another type.
    static func name<Root>(of keyPath: PartialKeyPath<Root>, among fields: [Field]) -> String? {
        let prefix = "\\" + String(describing: Root.self) + "."
        let description = keyPath.debugDescription
        guard description.hasPrefix(prefix) else { return nil }
        let name = String(description.dropFirst(prefix.count))
        let valueType = type(of: keyPath).valueType
        guard let field = fields.first(where: { $0.name == name }), field.type == valueType else { return nil }
        return name
    }
}

import Foundation

/// `SnapshotValue` is stored by on-disk backends and travels inside tokens and history, so it is
/// Codable. Plain JSON kinds (null, bool, number, string, array, object) are written as themselves,
/// which keeps a JSON store readable; kinds JSON cannot hold exactly are written as one-key objects
/// (see ``SnapshotTag`` for the list). An object whose own keys start with `$` is wrapped as
/// `{"$object": {…}}` so that it can never be mistaken for one of those.
///
/// The tagged forms are defined once, in ``SnapshotTag``; this conformance and ``SnapshotJSON``
/// both go through it, so the two read every text alike.
extension SnapshotValue: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        if let (tag, payload) = SnapshotTag.tagged(self) {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(payload, forKey: Key(tag.rawValue))
            return
        }
        switch self {
        case .null:
            var c = encoder.singleValueContainer(); try c.encodeNil()
        case .bool(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .int(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .double(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .string(let v):
            var c = encoder.singleValueContainer(); try c.encode(v)
        case .array(let v):
            var c = encoder.unkeyedContainer()
            for element in v { try c.encode(element) }
        case .object(let v):
            var c = encoder.container(keyedBy: Key.self)
            if SnapshotTag.needsWrapping(v) {
                try c.encode(v, forKey: Key(SnapshotTag.object.rawValue))
            } else {
                for (key, value) in v { try c.encode(value, forKey: Key(key)) }
            }
        case .unsigned, .date, .uuid, .data, .decimal:
            // Always tagged (above).
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "No tagged form for \(self)."))
        }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            self = try Self.decodeObject(keyed)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [SnapshotValue] = []
            elements.reserveCapacity(unkeyed.count ?? 0)
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(SnapshotValue.self)) }
            self = .array(elements)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let v = try? c.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? c.decode(Int64.self) {
            self = .int(v)
        } else if let v = try? c.decode(Double.self) {
            self = .double(v)
        } else if let v = try? c.decode(String.self) {
            self = .string(v)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "Not a snapshot value.")
        }
    }

    private static func decodeObject(_ c: KeyedDecodingContainer<Key>) throws -> SnapshotValue {
        let keys = c.allKeys
        if let key = keys.first(where: { $0.stringValue.hasPrefix("$") }) {
            guard keys.count == 1, let tag = SnapshotTag(rawValue: key.stringValue) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: SnapshotTag.strayKeyReason(key.stringValue))
            }
            if tag == .object { return .object(try c.decode([String: SnapshotValue].self, forKey: key)) }
            do {
                return try SnapshotTag.value(tag, payload: try c.decode(SnapshotValue.self, forKey: key))
            } catch let error as SnapshotTag.Invalid {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.reason)
            }
        }
        var object: [String: SnapshotValue] = [:]
        object.reserveCapacity(keys.count)
        for key in keys { object[key.stringValue] = try c.decode(SnapshotValue.self, forKey: key) }
        return .object(object)
    }
}

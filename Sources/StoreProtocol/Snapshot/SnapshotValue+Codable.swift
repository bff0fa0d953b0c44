import Foundation

/// `SnapshotValue` is stored by on-disk backends and travels inside tokens and history, so it is
/// Codable. Plain JSON kinds (null, bool, number, string, array, object) are written as themselves,
/// which keeps a JSON store readable; kinds JSON cannot tell apart are written as one-key objects:
/// `{"$date": 1718000000.5}` (seconds since 1970), `{"$uuid": "…"}`, `{"$data": "base64"}`,
/// `{"$decimal": "12.50"}`, `{"$uint": "18446744073709551615"}`. An object whose own keys start
/// with `$` is wrapped as `{"$object": {…}}` so that it can never be mistaken for one of those.
extension SnapshotValue: Codable {
    private enum Tag: String {
        case date = "$date", uuid = "$uuid", data = "$data", decimal = "$decimal"
        case unsigned = "$uint", object = "$object"
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
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
        case .unsigned(let v):
            var c = encoder.container(keyedBy: Key.self); try c.encode(String(v), forKey: Key(Tag.unsigned.rawValue))
        case .date(let v):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(v.timeIntervalSince1970, forKey: Key(Tag.date.rawValue))
        case .uuid(let v):
            var c = encoder.container(keyedBy: Key.self); try c.encode(v.uuidString, forKey: Key(Tag.uuid.rawValue))
        case .data(let v):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(v.base64EncodedString(), forKey: Key(Tag.data.rawValue))
        case .decimal(let v):
            var c = encoder.container(keyedBy: Key.self); try c.encode(v.description, forKey: Key(Tag.decimal.rawValue))
        case .object(let v):
            var c = encoder.container(keyedBy: Key.self)
            if v.keys.contains(where: { $0.hasPrefix("$") }) {
                try c.encode(v, forKey: Key(Tag.object.rawValue))
            } else {
                for (key, value) in v { try c.encode(value, forKey: Key(key)) }
            }
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
        if keys.count == 1, let key = keys.first, let tag = Tag(rawValue: key.stringValue) {
            func corrupt(_ what: String) -> DecodingError {
                .dataCorruptedError(forKey: key, in: c, debugDescription: "Not a valid \(what).")
            }
            switch tag {
            case .date: return .date(Date(timeIntervalSince1970: try c.decode(Double.self, forKey: key)))
            case .uuid:
                guard let v = UUID(uuidString: try c.decode(String.self, forKey: key)) else { throw corrupt("UUID") }
                return .uuid(v)
            case .data:
                guard let v = Data(base64Encoded: try c.decode(String.self, forKey: key)) else { throw corrupt("base64 string") }
                return .data(v)
            case .decimal:
                guard let v = Decimal(string: try c.decode(String.self, forKey: key), locale: Locale(identifier: "en_US_POSIX"))
                else { throw corrupt("decimal") }
                return .decimal(v)
            case .unsigned:
                guard let v = UInt64(try c.decode(String.self, forKey: key)) else { throw corrupt("unsigned integer") }
                return .unsigned(v)
            case .object:
                return .object(try c.decode([String: SnapshotValue].self, forKey: key))
            }
        }
        var object: [String: SnapshotValue] = [:]
        object.reserveCapacity(keys.count)
        for key in keys { object[key.stringValue] = try c.decode(SnapshotValue.self, forKey: key) }
        return .object(object)
    }
}

import Foundation
import StoreProtocol

/// JSON <-> `SnapshotValue`, for backends that store JSON: byte for byte, in the tagged form
/// that `SnapshotValue`'s `Codable` conformance also uses (one-key objects such as
/// `{"$date": 1767225600.5}` for what JSON lacks; `SnapshotTag` defines them once for both).
/// Every value written reads back exactly, or the writer throws.
///
/// Why not `JSONDecoder`: decoding through `Codable` probes every value with thrown errors and
/// was ~20× slower at opening a 100,000-row store. This parser goes straight from UTF-8 bytes
/// to values.
public enum SnapshotJSON {
    // MARK: Writing

    /// The deepest nesting the writer writes: a value whose arrays and objects (tagged forms
    /// included) nest deeper is refused. The parser reads somewhat deeper (see
    /// `Parser.maximumDepth`), so whatever was written reads back even inside a caller's framing.
    public static let maximumDepth = 512

    /// Appends `value` as compact JSON, object keys sorted (the same value always gives the same
    /// bytes). Every value that is written reads back exactly (`parse(_:)`): numbers JSON lacks
    /// (NaN, infinities), dates to the bit, and objects with `$` keys are written in the tagged
    /// forms `SnapshotTag` defines.
    /// - Throws: `DataStoreError/Code/unsupportedValue` when `value` nests deeper than
    ///   `maximumDepth`; `out` may then hold part of the value, so callers discard it.
    public static func write(_ value: SnapshotValue, into out: inout [UInt8]) throws {
        try write(value, depth: 0, at: [], into: &out)
    }

    /// Appends `value` as `write(_:into:)` does, as if it were written `depth` levels deep inside
    /// a document whose framing the caller writes itself (a log record's rows, say): the depth
    /// limit and the refusal's message are those of writing the whole document as one value.
    /// `outerPath` names where the value is, outermost step first (`.rows`, `[3]`, `.values`).
    /// - Throws: `DataStoreError/Code/unsupportedValue`, as `write(_:into:)`.
    package static func write(_ value: SnapshotValue, depth: Int, at outerPath: @autoclosure () -> [String], into out: inout [UInt8]) throws {
        do {
            try write(value, depth: depth, into: &out)
        } catch {
            // The outermost steps say which attribute; the rest repeats.
            let steps = outerPath() + error.path.reversed()
            let path = steps.prefix(6).joined() + (steps.count > 6 ? "…" : "")
            throw DataStoreError(.unsupportedValue,
                "A value nests more than \(maximumDepth) levels deep\(path.isEmpty ? "" : " (at \(path))"), which a store "
                + "writing JSON cannot read back. Flatten the attribute; nothing was written.")
        }
    }

    /// The keys of the last object `write(_:keys:depth:at:into:)` wrote, sorted and encoded.
    package struct KeyOrder {
        /// The keys, sorted; none starts with `$` (an object with such a key is wrapped).
        var keys: [String] = []
        /// Each key as JSON followed by `:`.
        var encoded: [[UInt8]] = []

        package init() {}
    }

    /// Appends `object` as `write(.object(object), depth:at:into:)` does, for a writer of many
    /// objects with the same keys (a log record's rows): when `object` has exactly the keys of
    /// `order` (the last object's), they are written in that order, already sorted and encoded,
    /// instead of being sorted again; otherwise `order` becomes this object's.
    /// - Throws: `DataStoreError/Code/unsupportedValue`, as `write(_:into:)`.
    package static func write(_ object: [String: SnapshotValue], keys order: inout KeyOrder, depth: Int,
                              at outerPath: @autoclosure () -> [String], into out: inout [UInt8]) throws {
        let start = out.count
        if object.count == order.keys.count, !object.isEmpty, depth < maximumDepth {
            out.append(UInt8(ascii: "{"))
            var complete = true
            for index in order.keys.indices {
                guard let value = object[order.keys[index]] else { complete = false; break }
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: order.encoded[index])
                do { try write(value, depth: depth + 1, into: &out) } catch { complete = false; break }
            }
            if complete {
                out.append(UInt8(ascii: "}"))
                return
            }
            out.removeSubrange(start...)   // other keys, or a value too deep: the general path writes it (or names where)
        }
        let keys = object.keys.sorted()
        if keys.contains(where: { $0.utf8.first == UInt8(ascii: "$") }) {
            order = KeyOrder()
        } else {
            order.keys = keys
            order.encoded = keys.map { key in
                var encoded: [UInt8] = []
                writeString(key, into: &encoded)
                encoded.append(UInt8(ascii: ":"))
                return encoded
            }
        }
        try write(.object(object), depth: depth, at: outerPath(), into: &out)
    }

    /// `value` as compact JSON.
    /// - Throws: `DataStoreError/Code/unsupportedValue`, as `write(_:into:)`.
    public static func encode(_ value: SnapshotValue) throws -> Data {
        var out: [UInt8] = []
        try write(value, into: &out)
        return Data(out)
    }

    /// Nesting too deep; the path (innermost first) is filled in on the way out.
    struct TooDeep: Error {
        var path: [String] = []
    }

    private static func write(_ value: SnapshotValue, depth: Int, into out: inout [UInt8]) throws(TooDeep) {
        // Counted as the parser counts: every value is one level below its container, and a
        // tagged value's payload one below the tag's object.
        guard depth < maximumDepth else { throw TooDeep() }
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .int(let v): out.append(contentsOf: String(v).utf8)
        case .double(let v):
            if v.isFinite { out.append(contentsOf: v.description.utf8) } else { try tagged(.double, .string(SnapshotTag.nonFiniteText(v)), depth: depth, into: &out) }
        case .string(let v): writeString(v, into: &out)
        case .date(let v):
            let (tag, payload) = SnapshotTag.date(v)
            try tagged(tag, payload, depth: depth, into: &out)
        case .uuid(let v):
            // `{"$uuid":"<uuidString>"}`, written from the bytes without making the string.
            guard depth + 1 < maximumDepth else { throw TooDeep() }
            out.append(contentsOf: SnapshotTag.uuid.prefix)
            writeUUIDString(v, into: &out)
            out.append(UInt8(ascii: "}"))
        case .unsigned, .data, .decimal:
            guard let (tag, payload) = SnapshotTag.tagged(value) else { return }
            try tagged(tag, payload, depth: depth, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                do { try write(element, depth: depth + 1, into: &out) } catch {
                    throw TooDeep(path: error.path + ["[\(index)]"])
                }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if SnapshotTag.needsWrapping(object) {
                guard depth + 1 < maximumDepth else { throw TooDeep() }
                out.append(contentsOf: SnapshotTag.object.prefix)
                try writeObject(object, depth: depth + 1, into: &out)
                out.append(UInt8(ascii: "}"))
            } else {
                try writeObject(object, depth: depth, into: &out)
            }
        }
    }

    @inline(__always)
    private static func tagged(_ tag: SnapshotTag, _ payload: SnapshotValue, depth: Int, into out: inout [UInt8]) throws(TooDeep) {
        guard depth + 1 < maximumDepth else { throw TooDeep() }
        out.append(contentsOf: tag.prefix)
        switch payload {
        case .string(let text): writeString(text, into: &out)
        case .double(let number): out.append(contentsOf: number.description.utf8)   // finite: tagged() never gives others
        default: try write(payload, depth: depth + 1, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Keys sorted, so the same value always writes the same bytes (diffable files).
    private static func writeObject(_ object: [String: SnapshotValue], depth: Int, into out: inout [UInt8]) throws(TooDeep) {
        out.append(UInt8(ascii: "{"))
        for (index, key) in object.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            do { try write(object[key]!, depth: depth + 1, into: &out) } catch {
                throw TooDeep(path: error.path + [".\(key)"])
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    private static let hex = Array("0123456789abcdef".utf8)
    private static let upperHex = Array("0123456789ABCDEF".utf8)

    /// Appends `uuid.uuidString` as a JSON string (upper-case hex, dashes after bytes 4, 6, 8
    /// and 10), without making the string.
    package static func writeUUIDString(_ uuid: UUID, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
                out.append(upperHex[Int(byte >> 4)])
                out.append(upperHex[Int(byte & 0xF)])
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `string` as a JSON string, escaped as every string here is.
    package static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: Parsing

    /// Where and why a text is not JSON.
    public struct SyntaxError: Error, CustomStringConvertible {
        /// The byte offset in the text where parsing failed.
        public let offset: Int
        /// What was wrong there, such as "unexpected character".
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// Parses one JSON value (surrounding white space allowed).
    /// - Throws: `SyntaxError` with the byte offset.
    public static func parse(_ data: some Collection<UInt8>) throws -> SnapshotValue {
        try Array(data).withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            let value = try parser.value(depth: 0)
            try parser.end()
            return value
        }
    }

    /// The parser, for readers of documents whose framing they know (a log record, a JSON store's
    /// base file): they walk the framing with `plainObject(depth:_:)` and `array(depth:_:)` and
    /// read what is inside with `value(depth:)`, straight into their own types, accepting and
    /// refusing exactly what `parse(_:)` does (a framing object with a `$` key is read again as a
    /// value, as `parse(_:)` reads it).
    package struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        package var position = 0
        /// How many keys the last plain object read had.
        var lastObjectCount = 0
        /// Deeper nesting than this is refused rather than risking the stack on hostile input.
        /// It is the writer's limit plus room for framing: callers write values inside framing
        /// of their own (a JSON store's base file writes each row three levels deep), and what the
        /// writer accepted must read back there too.
        static let maximumDepth = SnapshotJSON.maximumDepth + 64

        package init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        package func error(_ reason: String) -> SyntaxError { SyntaxError(offset: position, reason: reason) }

        /// Throws unless only white space follows.
        package mutating func end() throws {
            skipWhitespace()
            guard position == bytes.count else { throw error("unexpected bytes after the value") }
        }

        /// Reads an object at nesting `depth` none of whose keys starts with `$`, calling `field`
        /// with each key in order, to read that key's value (at `depth + 1`) from the parser it is
        /// given. Returns `false` when the value here is not an object, or is one with a `$` key
        /// (a tagged value, or damage): `position` is then back where the value starts, for the
        /// caller to forget what `field` saw and read it with `value(depth:)`.
        /// - Throws: `SyntaxError`, as `parse(_:)`, and what `field` throws.
        package mutating func plainObject(depth: Int, _ field: (inout Parser, String) throws -> Void) throws -> Bool {
            guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
            skipWhitespace()
            let start = position
            guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return false }
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return true }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a key") }
                if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "$") { position = start; return false }
                let key = try string()
                if key.utf8.first == UInt8(ascii: "$") { position = start; return false }   // an escaped `$`
                try expect(UInt8(ascii: ":"))
                try field(&self, key)
                skipWhitespace()
                guard position < bytes.count else { throw error("unterminated object") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return true }
                throw error("expected ',' or '}'")
            }
        }

        /// Reads an array at nesting `depth`, calling `element` to read each element (at
        /// `depth + 1`). Returns `false`, having read nothing, when the value here is not an array.
        /// - Throws: `SyntaxError`, as `parse(_:)`, and what `element` throws.
        package mutating func array(depth: Int, _ element: (inout Parser) throws -> Void) throws -> Bool {
            guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { return false }
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return true }
            while true {
                try element(&self)
                skipWhitespace()
                guard position < bytes.count else { throw error("unterminated array") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return true }
                throw error("expected ',' or ']'")
            }
        }

        mutating func skipWhitespace() {
            // A switch, not `[…].contains`: an array literal is allocated per call in debug builds.
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == byte else { throw error("expected '\(Character(UnicodeScalar(byte)))'") }
            position += 1
        }

        mutating func literal(_ word: String, _ value: SnapshotValue) throws -> SnapshotValue {
            for byte in word.utf8 {
                guard position < bytes.count, bytes[position] == byte else { throw error("expected \(word)") }
                position += 1
            }
            return value
        }

        /// Reads one value at nesting `depth` (the document's own value is at 0).
        package mutating func value(depth: Int) throws -> SnapshotValue {
            guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of data") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["):
                position += 1
                var elements: [SnapshotValue] = []
                skipWhitespace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                while true {
                    elements.append(try value(depth: depth + 1))
                    skipWhitespace()
                    guard position < bytes.count else { throw error("unterminated array") }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                    throw error("expected ',' or ']'")
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        /// Reads an object; a `$` key makes it one of the tagged forms `SnapshotTag` defines
        /// (the same rules as `SnapshotValue`'s `Codable` conformance). With `literalKeys` (the
        /// inside of a `$object` wrapper) the object's own keys are taken as they are.
        mutating func object(depth: Int, literalKeys: Bool = false) throws -> SnapshotValue {
            let start = position
            position += 1
            var object: [String: SnapshotValue] = [:]
            var tagKey: String?
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(object) }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                try expect(UInt8(ascii: ":"))
                if !literalKeys, key.utf8.first == UInt8(ascii: "$") {
                    // The common case of an id, `{"$uuid":"…"}` alone: no string made for it.
                    if tagKey == nil, object.isEmpty, key == SnapshotTag.uuid.rawValue, let uuid = uuidAlone() { return .uuid(uuid) }
                    if tagKey == nil { tagKey = key }
                    if key == SnapshotTag.object.rawValue {
                        // The wrapped object's own keys are data, not tags: read it literally.
                        skipWhitespace()
                        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else {
                            throw SyntaxError(offset: start, reason: "a $object must hold an object")
                        }
                        guard depth + 1 < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
                        object[key] = try self.object(depth: depth + 1, literalKeys: true)
                    } else {
                        let payload = try value(depth: depth + 1)
                        // The common case, a tag alone (`{"$date": …}`): no dictionary.
                        if object.isEmpty, tagKey == key {
                            skipWhitespace()
                            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                                position += 1
                                return try Self.tagged(key, payload, at: start)
                            }
                        }
                        object[key] = payload
                    }
                } else {
                    // Rows of one entity have the same keys: sized as the last object, one
                    // allocation (not at the start: a tag alone needs none).
                    if object.isEmpty { object.reserveCapacity(lastObjectCount) }
                    object[key] = try value(depth: depth + 1)
                }
                skipWhitespace()
                guard position < bytes.count else { throw error("unterminated object") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; break }
                throw error("expected ',' or '}'")
            }
            guard let tagKey else {
                lastObjectCount = object.count
                return .object(object)
            }
            guard object.count == 1, let tag = SnapshotTag(rawValue: tagKey), let payload = object[tagKey] else {
                throw SyntaxError(offset: start, reason: SnapshotTag.strayKeyReason(tagKey))
            }
            if tag == .object {
                guard case .object(let inner) = payload else { throw SyntaxError(offset: start, reason: "a $object must hold an object") }
                return .object(inner)
            }
            return try Self.tagged(tagKey, payload, at: start)
        }

        /// The value a tagged object (other than `$object`) stands for.
        static func tagged(_ key: String, _ payload: SnapshotValue, at start: Int) throws -> SnapshotValue {
            guard let tag = SnapshotTag(rawValue: key) else { throw SyntaxError(offset: start, reason: SnapshotTag.strayKeyReason(key)) }
            do {
                return try SnapshotTag.value(tag, payload: payload)
            } catch {
                throw SyntaxError(offset: start, reason: error.reason)
            }
        }

        mutating func string() throws -> String {
            position += 1   // opening quote
            let start = position
            var hasEscapes = false
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    if !hasEscapes {
                        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                        position += 1
                        return text
                    }
                    break
                }
                if byte == UInt8(ascii: "\\") { hasEscapes = true; position += 1 }
                if byte < 0x20 { throw error("control character in a string") }
                position += 1
            }
            guard position < bytes.count else { throw error("unterminated string") }
            // Slow path: decode escapes.
            var scalars = String.UnicodeScalarView()
            var utf8: [UInt8] = []
            var index = start
            func flush() {
                if !utf8.isEmpty { scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars); utf8.removeAll() }
            }
            while index < position {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\\") else { utf8.append(byte); index += 1; continue }
                flush()
                index += 1
                guard index < position else { throw error("bad escape") }
                switch bytes[index] {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4(at: index + 1)
                    index += 4
                    if (0xD800..<0xDC00).contains(code), index + 6 < position,
                       bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u") {
                        let low = try hex4(at: index + 3)
                        if (0xDC00..<0xE000).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            index += 6
                        }
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw error("bad escape")
                }
                index += 1
            }
            flush()
            position += 1
            return String(scalars)
        }

        /// At a `$uuid` tag's value: a UUID string alone in its object (`"…"}`), read as
        /// `SnapshotTag.uuid(_:)` reads it, with `position` past the object; otherwise `nil`,
        /// `position` unchanged, for the general path to read (and judge) it.
        mutating func uuidAlone() -> UUID? {
            let start = position
            skipWhitespace()
            let first = position + 1
            guard first + 37 <= bytes.count, bytes[position] == UInt8(ascii: "\""), bytes[first + 36] == UInt8(ascii: "\"") else {
                position = start
                return nil
            }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &uuid) { out -> Bool in
                var index = 0, offset = first
                while offset < first + 36 {
                    if offset - first == 8 || offset - first == 13 || offset - first == 18 || offset - first == 23 {
                        guard bytes[offset] == UInt8(ascii: "-") else { return false }
                        offset += 1
                        continue
                    }
                    guard let high = Self.nibble(bytes[offset]), let low = Self.nibble(bytes[offset + 1]) else { return false }
                    out[index] = high << 4 | low
                    index += 1
                    offset += 2
                }
                return true
            }
            position = first + 37
            skipWhitespace()
            guard parsed, position < bytes.count, bytes[position] == UInt8(ascii: "}") else {
                position = start
                return nil
            }
            position += 1
            return UUID(uuid: uuid)
        }

        @inline(__always)
        static func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        func hex4(at index: Int) throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("bad \\u escape") }
            var code: UInt32 = 0
            for offset in 0..<4 {
                let byte = bytes[index + offset]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("bad \\u escape")
                }
                code = code << 4 | UInt32(digit)
            }
            return code
        }

        mutating func number() throws -> SnapshotValue {
            let start = position
            var isInteger = true
            while position < bytes.count {
                let byte = bytes[position]
                if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
                    position += 1
                } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    isInteger = false
                    position += 1
                } else {
                    break
                }
            }
            guard position > start else { throw error("unexpected character") }
            // Most numbers are integers of up to 18 digits: read them without making a string.
            if isInteger, let integer = Self.shortInteger(UnsafeBufferPointer(rebasing: bytes[start..<position])) { return .int(integer) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .int(integer) }
            guard let double = Double(text) else { throw error("not a number: \(text)") }
            return .double(double)
        }

        /// `-?[0-9]{1,18}` as the integer `Int64(_:)` reads from it (it cannot overflow);
        /// `nil` for anything else, which the caller reads through `Int64(_:)` and `Double(_:)`.
        @inline(__always)
        static func shortInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
            var index = 0
            let negative = text.first == UInt8(ascii: "-")
            if negative { index = 1 }
            let digits = text.count - index
            guard digits >= 1, digits <= 18 else { return nil }
            var value: Int64 = 0
            while index < text.count {
                let digit = text[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
                index += 1
            }
            return negative ? -value : value
        }
    }
}

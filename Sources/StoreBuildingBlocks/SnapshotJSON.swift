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
    public static let maximumDepth = SnapshotValue.maximumNestingDepth

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
        /// For the object being written, where each key of `keys` is in it (scratch, kept so
        /// that a row does not allocate it).
        var found: [Dictionary<String, SnapshotValue>.Index?] = []
        /// For each place in the last object's own order, the place its key had in `keys`: the
        /// first key compared for the object's key at that place. Dictionaries with the same
        /// keys and capacity often iterate them in the same order, so the first compare usually
        /// matches; when it does not, the others are tried.
        var guesses: [Int] = []
        /// A deliberately broken writer for the tests' negative control: takes each key for the
        /// one at its guessed place without comparing them.
        package var trustsGuesses = false

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
        if object.count == order.keys.count, !object.isEmpty, depth < maximumDepth, order.place(object) {
            out.append(UInt8(ascii: "{"))
            var complete = true
            for index in order.keys.indices {
                // `place` found every key: no place is empty.
                guard let found = order.found[index] else { complete = false; break }
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: order.encoded[index])
                do { try write(object.values[found], depth: depth + 1, into: &out) } catch { complete = false; break }
            }
            if complete {
                out.append(UInt8(ascii: "}"))
                return
            }
            out.removeSubrange(start...)   // a value too deep: the general path writes it (or names where)
        }
        let keys = object.keys.sorted()
        if keys.contains(where: { $0.utf8.first == UInt8(ascii: "$") }) {
            let trustsGuesses = order.trustsGuesses
            order = KeyOrder()
            order.trustsGuesses = trustsGuesses
        } else {
            order.keys = keys
            order.found = Array(repeating: nil, count: keys.count)
            order.guesses = Array(keys.indices)
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
        case .int(let v): writeInteger(v, into: &out)
        case .double(let v):
            if v.isFinite { writeFinite(v, into: &out) } else { try tagged(.double, .string(SnapshotTag.nonFiniteText(v)), depth: depth, into: &out) }
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
        case .double(let number): writeFinite(number, into: &out)   // finite: tagged() never gives others
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

    /// Appends `String(value)`, without making the string.
    @inline(__always)
    package static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value >= 0, value < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for 20 digits and a sign
        withUnsafeMutableBytes(of: &digits) { digits in
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                index -= 1
                digits[index] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: digits[index...]))
        }
    }

    /// Appends `value.description` of a finite `value`: a whole number below 2^53 (a date's
    /// seconds, often) as `description` writes it, its digits and `.0`, without making the
    /// string; any other through `description`.
    @inline(__always)
    package static func writeFinite(_ value: Double, into out: inout [UInt8]) {
        if value.magnitude < 9_007_199_254_740_992, value.rounded(.towardZero) == value {
            if value == 0, value.sign == .minus { out.append(UInt8(ascii: "-")) }   // -0.0
            writeInteger(Int64(value), into: &out)
            out.append(UInt8(ascii: "."))
            out.append(UInt8(ascii: "0"))
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)
    private static let upperHex = Array("0123456789ABCDEF".utf8)

    /// Appends `uuid.uuidString` as a JSON string (upper-case hex, dashes after bytes 4, 6, 8
    /// and 10), without making the string.
    package static func writeUUIDString(_ uuid: UUID, into out: inout [UInt8]) {
        // Into 38 bytes on the stack, appended at once: not a byte at a time through `append`.
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { text in
            withUnsafeBytes(of: uuid.uuid) { bytes in
                upperHex.withUnsafeBufferPointer { upperHex in
                    text[0] = UInt8(ascii: "\"")
                    var offset = 1
                    for index in 0..<16 {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            text[offset] = UInt8(ascii: "-")
                            offset += 1
                        }
                        text[offset] = upperHex[Int(bytes[index] >> 4)]
                        text[offset + 1] = upperHex[Int(bytes[index] & 0xF)]
                        offset += 2
                    }
                    text[offset] = UInt8(ascii: "\"")
                }
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[..<38]))
        }
    }

    /// Appends `string` as a JSON string, escaped as every string here is: the runs of bytes
    /// that need no escape are appended whole.
    package static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var run = 0
            // Plain bytes are stepped over eight at a time (`Parser.plainRun`, the reader's
            // scan), the rest one at a time: a byte loop cost a log save about 14 instructions
            // a byte (callgrind).
            var index = Parser.plainRun(bytes, from: 0)
            while index < bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                run = index + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
                default:
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                }
                index = Parser.plainRun(bytes, from: index + 1)
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
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
        try parse(data, fastPaths: true)
    }

    /// `parse(_:)`, with the parser's fast paths (`Parser/fastPaths`) or without, for tests that
    /// compare the two.
    package static func parse(_ data: some Collection<UInt8>, fastPaths: Bool) throws -> SnapshotValue {
        try Array(data).withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            parser.fastPaths = fastPaths
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
        /// Whether strings, numbers and tagged values in the forms the writer writes are read by
        /// their fast paths (`plainRun(_:from:)`, `recentString(_:_:)`, `exactDouble(_:)`,
        /// `taggedAlone(depth:)`); without them, every value goes the way it went before
        /// issue 30's second pass, the reference that tests compare the fast paths with.
        package var fastPaths = true
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
            if fastPaths, !literalKeys, let tagged = taggedAlone(depth: depth) { return tagged }
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
                    // (`init(minimumCapacity:)`, not `reserveCapacity(_:)`: that one is not
                    // specialized, and cost more than the dictionary's other work.)
                    if object.isEmpty { object = Dictionary(minimumCapacity: lastObjectCount) }
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

        /// At an object's `{`: the value of a `$date`, `$date2001` or `$uuid` tag written as the
        /// writer writes it (`{"$date":1767225600.5}`, no white space, a number or UUID alone),
        /// read without a string for the key or a value for the payload; otherwise `nil`, with
        /// `position` unchanged, for the general path to read (and judge) it.
        mutating func taggedAlone(depth: Int) -> SnapshotValue? {
            // `"$date":`, `"$uuid":` after the `{`: eight bytes, compared as one word.
            let start = position
            guard depth + 1 < Self.maximumDepth, bytes.count - start > 9, let base = bytes.baseAddress else { return nil }
            let word = UInt64(littleEndian: UnsafeRawPointer(base + start + 1).loadUnaligned(as: UInt64.self))
            if word == Self.dateKey {
                position = start + 9
                if let seconds = numberAlone() { return .date(Date(timeIntervalSince1970: seconds)) }
            } else if word == Self.uuidKey {
                position = start + 9
                if let uuid = uuidAlone() { return .uuid(uuid) }
            } else if word & 0xFFFF_FFFF_FFFF == Self.dateKey & 0xFFFF_FFFF_FFFF, Self.matches(bytes, at: start + 7, Self.date2001Rest) {
                position = start + 7 + Self.date2001Rest.count
                if let seconds = numberAlone() { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            }
            position = start
            return nil
        }

        /// `"$date":` and `"$uuid":` as little-endian words; `2001":`, the rest of `"$date2001":`
        /// after `"$date`.
        private static let dateKey = word(#""$date":"#), uuidKey = word(#""$uuid":"#)
        private static let date2001Rest = Array(#"2001":"#.utf8)

        private static func word(_ text: String) -> UInt64 {
            text.utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        @inline(__always)
        private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, _ name: [UInt8]) -> Bool {
            guard bytes.count - offset >= name.count else { return false }
            for index in name.indices where bytes[offset + index] != name[index] { return false }
            return true
        }

        /// At a date tag's payload: a number alone in its object (`1767225600.5}`), as a finite
        /// `Double`, as `SnapshotTag.value(_:payload:)` takes it, with `position` past the object;
        /// otherwise `nil` (the caller puts `position` back).
        private mutating func numberAlone() -> Double? {
            if let seconds = decimalAlone() { return seconds }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "-") || (bytes[position] &- UInt8(ascii: "0")) < 10,
                  let number = try? number(), position < bytes.count, bytes[position] == UInt8(ascii: "}") else { return nil }
            position += 1
            switch number {
            case .int(let seconds): return Double(seconds)
            case .double(let seconds) where seconds.isFinite: return seconds
            default: return nil
            }
        }

        /// `numberAlone()` for a date's seconds as the writer writes them: `-?[0-9]+}` or
        /// `-?[0-9]+\.[0-9]+}` of at most 18 digits that make an integer below 2^53 (the text
        /// `shortInteger(_:)` or `exactDouble(_:)` reads), read in one pass; otherwise `nil`,
        /// `position` unchanged.
        @inline(__always)
        private mutating func decimalAlone() -> Double? {
            var index = position
            let count = bytes.count
            let negative = index < count && bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var significand: UInt64 = 0
            let first = index
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                significand = significand &* 10 &+ UInt64(digit)
                index += 1
            }
            var digits = index - first
            guard digits > 0, index < count else { return nil }
            var fraction = 0
            if bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fractionStart = index
                while index < count, digits <= 18 {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { break }
                    significand = significand &* 10 &+ UInt64(digit)
                    index += 1
                    digits += 1
                }
                fraction = index - fractionStart
                guard fraction > 0 else { return nil }
            }
            guard digits <= 18, significand < 1 << 53, index < count, bytes[index] == UInt8(ascii: "}") else { return nil }
            position = index + 1
            if fraction == 0 {
                let integer = Int64(significand)   // as `shortInteger(_:)` reads it: -0 is 0
                return Double(negative ? -integer : integer)
            }
            let value = Double(significand) / Self.powersOfTen[fraction]
            return negative ? -value : value
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
                // Eight bytes at a time while none of them ends the string or needs a look.
                if fastPaths { position = Self.plainRun(bytes, from: position) }
                guard position < bytes.count else { break }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    if !hasEscapes {
                        let text = fastPaths ? recentString(start, position)
                            : String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
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

        /// The offset of the first `"`, `\\` or control character from `offset` on, or of the last
        /// seven bytes or fewer, where it stops looking: the bytes before it are ones `string()`
        /// steps over one by one.
        @inline(__always)
        static func plainRun(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int {
            guard let base = bytes.baseAddress else { return offset }
            var offset = offset
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while bytes.count - offset >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
                let quote = word ^ (ones &* UInt64(UInt8(ascii: "\""))), backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
                // A byte is zero (or below 0x20) where subtracting borrows into its top bit while
                // its own top bit was clear. A borrow can mark bytes above a marked one too, never
                // below: the lowest mark is exact.
                let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)) & highs
                guard special == 0 else { return offset + special.trailingZeroBitCount / 8 }
                offset += 8
            }
            return offset
        }

        /// Short strings read before in this text, by a hash of their bytes: `recentString`'s
        /// cache (allocated at its first use).
        private var recent: [Recent] = []
        private struct Recent {
            var start = 0, count = -1
            var string = ""
        }

        /// The string of the UTF-8 bytes `start..<end` (no escapes): for a short one, the string
        /// made for the same bytes earlier in this text when the cache still holds it. Rows
        /// repeat their keys and often their values; comparing bytes costs less than making
        /// (and validating) the string again, and the rows share one copy.
        @inline(__always)
        mutating func recentString(_ start: Int, _ end: Int) -> String {
            let count = end - start
            guard count > 0, count <= 32, let base = bytes.baseAddress else {
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            }
            var hash: UInt32 = 2_166_136_261   // FNV-1a
            for index in start..<end { hash = (hash ^ UInt32(bytes[index])) &* 16_777_619 }
            let slot = Int(hash & 63)
            if recent.isEmpty { recent = Array(repeating: Recent(), count: 64) }
            if recent[slot].count == count, memcmp(base + recent[slot].start, base + start, count) == 0 { return recent[slot].string }
            let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            recent[slot] = Recent(start: start, count: count, string: string)
            return string
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
            // Each hex digit through a table (16 and up for anything else), all of them or'd
            // together: one test at the end instead of one per digit.
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var invalid: UInt8 = 0
            Self.hexDigits.withUnsafeBufferPointer { digits in
                withUnsafeMutableBytes(of: &uuid) { out in
                    var offset = first
                    for index in 0..<16 {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            invalid |= bytes[offset] == UInt8(ascii: "-") ? 0 : 0x10
                            offset += 1
                        }
                        let high = digits[Int(bytes[offset])], low = digits[Int(bytes[offset + 1])]
                        invalid |= high | low
                        out[index] = high << 4 | low
                        offset += 2
                    }
                }
            }
            let parsed = invalid < 0x10
            position = first + 37
            skipWhitespace()
            guard parsed, position < bytes.count, bytes[position] == UInt8(ascii: "}") else {
                position = start
                return nil
            }
            position += 1
            return UUID(uuid: uuid)
        }

        /// Each byte's value as a hex digit (either case); 0x10 for a byte that is not one.
        static let hexDigits: [UInt8] = (0...255).map { byte in nibble(UInt8(byte)) ?? 0x10 }

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
            // Most numbers are integers of up to 18 digits, or decimals of up to 15 significant
            // digits (a date's seconds): read them without making a string.
            let digits = UnsafeBufferPointer(rebasing: bytes[start..<position])
            if isInteger, let integer = Self.shortInteger(digits) { return .int(integer) }
            if fastPaths, !isInteger, let double = Self.exactDouble(digits) { return .double(double) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .int(integer) }
            guard let double = Double(text) else { throw error("not a number: \(text)") }
            return .double(double)
        }

        /// `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?` as `Double(_:)` reads it, when its digits
        /// without the point make an integer below 2^53 and the power of ten they are scaled by is
        /// at most 22: both are then exact as `Double`s, so one multiplication or division rounds
        /// once, to the nearest, as `Double(_:)` does (Clinger's fast path). `nil` for anything
        /// else, which the caller reads through `Double(_:)`.
        @inline(__always)
        package static func exactDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            var index = 0
            let count = text.count
            let negative = count > 0 && text[0] == UInt8(ascii: "-")
            if negative { index = 1 }
            var significand: UInt64 = 0
            var significant = 0   // digits in `significand`, leading zeros not counted
            var scale = 0         // the power of ten `significand` is scaled by
            let integerStart = index
            while index < count {
                let digit = text[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if significand != 0 || digit != 0 { significant += 1 }
                significand = significand &* 10 &+ UInt64(digit)
                index += 1
                guard significant <= 16 else { return nil }
            }
            guard index > integerStart else { return nil }
            if index < count, text[index] == UInt8(ascii: ".") {
                index += 1
                let fractionStart = index
                while index < count {
                    let digit = text[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { break }
                    if significand != 0 || digit != 0 { significant += 1 }
                    significand = significand &* 10 &+ UInt64(digit)
                    scale -= 1
                    index += 1
                    guard significant <= 16, scale >= -22 else { return nil }
                }
                guard index > fractionStart else { return nil }
            }
            if index < count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
                index += 1
                var negativeExponent = false
                if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                    negativeExponent = text[index] == UInt8(ascii: "-")
                    index += 1
                }
                let exponentStart = index
                var exponent = 0
                while index < count {
                    let digit = text[index] &- UInt8(ascii: "0")
                    guard digit < 10, exponent < 1_000 else { return nil }
                    exponent = exponent * 10 + Int(digit)
                    index += 1
                }
                guard index > exponentStart else { return nil }
                scale += negativeExponent ? -exponent : exponent
            }
            guard index == count, significand < 1 << 53, (-22...22).contains(scale) else { return nil }
            var value = Double(significand)
            if scale < 0 { value /= powersOfTen[-scale] } else if scale > 0 { value *= powersOfTen[scale] }
            return negative ? -value : value
        }

        /// 10^0 through 10^22, each exact as a `Double`.
        static let powersOfTen: [Double] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
        ]

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

extension SnapshotJSON.KeyOrder {
    /// Finds where each of `keys` is in `object` (`found`), walking `object` once instead of
    /// looking each key up (a hashed lookup per key cost a log save about 2,100 instructions a
    /// row of six attributes, callgrind). Keys match by their UTF-8 bytes, the bytes `encoded`
    /// holds: a key Swift finds equal but spelled otherwise is not matched, and the general path
    /// writes it in its own spelling.
    /// - Returns: `false` when a key of `object` is not among `keys`. `object` has as many keys
    ///   as `keys`, so when every key of it is matched, every place of `found` is filled.
    /// - Complexity: O(*k*) key compares when the keys come in the last object's order, O(*k*²) at most.
    mutating func place(_ object: [String: SnapshotValue]) -> Bool {
        for place in found.indices { found[place] = nil }
        var position = 0
        var index = object.startIndex
        while index != object.endIndex {
            let key = object.keys[index]
            var place = guesses[position]
            if !trustsGuesses, found[place] != nil || !Self.sameBytes(keys[place], key) {
                guard let other = keys.indices.first(where: { found[$0] == nil && Self.sameBytes(keys[$0], key) }) else { return false }
                place = other
            }
            found[place] = index
            guesses[position] = place
            position += 1
            object.formIndex(after: &index)
        }
        return true
    }

    /// Whether `a` and `b` have the same UTF-8 bytes (`==` compares canonical equivalence).
    /// Through the strings' own storage: `elementsEqual` over the views cost 550 instructions
    /// for a short key.
    @inline(__always)
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        let count = a.utf8.count
        guard count == b.utf8.count else { return false }
        guard count > 0 else { return true }
        let compared = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in memcmp(a.baseAddress!, b.baseAddress!, count) == 0 }
        }
        return (compared ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }
}

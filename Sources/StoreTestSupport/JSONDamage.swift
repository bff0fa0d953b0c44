/// Random damage to a JSON document, for tests that compare two readers on it: one byte
/// replaced, inserted or removed, drawn from the bytes JSON's syntax is made of (and NUL, a
/// control character and a byte no UTF-8 text holds), so that most changes hit the syntax.
public enum JSONDamage {
    static let alphabet = Array(#"{}[]":,\$0123456789-+.eEtrufalsn u"#.utf8) + [0, 0x1F, 0xFF]

    /// `bytes` with one random byte replaced, inserted or removed. `bytes` must not be empty.
    public static func oneByteChange(of bytes: [UInt8]) -> [UInt8] {
        var damaged = bytes
        let index = Int.random(in: 0..<damaged.count)
        switch Int.random(in: 0..<3) {
        case 0: damaged[index] = alphabet.randomElement()!
        case 1: damaged.insert(alphabet.randomElement()!, at: index)
        default: damaged.remove(at: index)
        }
        return damaged
    }
}

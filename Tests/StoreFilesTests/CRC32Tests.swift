import Foundation
import StoreProtocol
import StoreFiles
import Testing

@Suite struct CRC32Tests {
    @Test func theCheckValueOfTheStandardIsMet() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    /// The eight-byte loop and the byte loop agree at every length and alignment.
    @Test func everyLengthAndOffsetAgreesWithTheBytewiseDefinition() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        func bytewise(_ slice: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in slice {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return crc ^ 0xFFFF_FFFF
        }
        for start in 0..<9 {
            for end in start...bytes.count {
                let slice = bytes[start..<end]
                #expect(CRC32.checksum(slice) == bytewise(slice), "bytes \(start)..<\(end)")
                #expect(CRC32.checksum(Data(slice)) == bytewise(slice))
            }
        }
    }
}

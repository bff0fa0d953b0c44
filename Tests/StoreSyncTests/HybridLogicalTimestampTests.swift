import StoreSync
import Testing

@Suite struct HybridLogicalTimestampTests {
    @Test func ordersByMillisecondsThenCounterThenReplica() {
        let early = HybridLogicalTimestamp(milliseconds: 10, counter: 9, replica: "b")
        let later = HybridLogicalTimestamp(milliseconds: 11, counter: 0, replica: "a")
        let tieA = HybridLogicalTimestamp(milliseconds: 11, counter: 0, replica: "b")
        #expect(early < later)
        #expect(later < tieA)
        #expect(!(tieA < later))
    }
}

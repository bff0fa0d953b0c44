import StoreProtocol
import Testing

/// Error codes work as `catch` patterns, as SwiftData's do (`catch SwiftDataError.historyTokenExpired`).
@Suite struct ErrorPatternTests {
    func caught(_ error: any Error) -> String {
        do {
            throw error
        } catch HistoryError.historyTokenExpired {
            return "expired"
        } catch HistoryError.foreignToken {
            return "foreign"
        } catch DataStoreError.readOnly {
            return "read-only"
        } catch DataStoreError.incompatibleSchema {
            return "incompatible"
        } catch ModelContextError.deleteDenied {
            return "denied"
        } catch {
            return "other"
        }
    }

    @Test func aCodeIsAPattern() {
        #expect(caught(HistoryError(.historyTokenExpired, "History after the token was deleted.")) == "expired")
        #expect(caught(HistoryError(.foreignToken, "Another store's token.")) == "foreign")
        #expect(caught(DataStoreError(.readOnly, "Read-only.")) == "read-only")
        #expect(caught(DataStoreError(.incompatibleSchema, "Newer.")) == "incompatible")
        #expect(caught(ModelContextError(.deleteDenied, "Still related.")) == "denied")
        #expect(caught(DataStoreError(.corruptStore, "Damaged.")) == "other", "another code does not match")
        #expect(caught(HistoryError(.historyUnavailable, "None.")) == "other")
    }

    @Test func theThrownErrorKeepsItsMessage() {
        do {
            throw DataStoreError(.readOnly, "The store 'x' is read-only.")
        } catch let error as DataStoreError where error == .readOnly {
            #expect(error.message == "The store 'x' is read-only.")
        } catch {
            Issue.record("not matched: \(error)")
        }
    }
}

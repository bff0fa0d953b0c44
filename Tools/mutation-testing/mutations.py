"""The mutations: each one realistic bug, as text to find (exactly once) in a file and its
replacement. `equivalent` marks a mutation that changes nothing observable, with the reason; it
is listed but not scored."""

TABLE = "Sources/StoreBuildingBlocks/SnapshotTable.swift"
QUERY = "Sources/StoreProtocol/Store/SnapshotQuery.swift"
DESCRIPTOR = "Sources/StoreProtocol/Store/FetchDescriptor.swift"
HISTORY = "Sources/StoreBuildingBlocks/HistoryLog.swift"
TOKEN = "Sources/StoreProtocol/History/HistoryToken.swift"
CONTAINER_HISTORY = "Sources/StoreProtocol/Container/ModelContainer+History.swift"
CONTEXT_SAVE = "Sources/StoreProtocol/Container/ModelContext+Save.swift"
CONTEXT_TRACKING = "Sources/StoreProtocol/Container/ModelContext+Tracking.swift"
CONTEXT_REGISTRATION = "Sources/StoreProtocol/Container/ModelContext+Registration.swift"
BACKING = "Sources/StoreProtocol/Model/ModelBacking.swift"
CONTEXT_FETCH = "Sources/StoreProtocol/Container/ModelContext+Fetch.swift"
CONTAINER = "Sources/StoreProtocol/Container/ModelContainer.swift"
SNAPSHOT = "Sources/StoreProtocol/Snapshot/DataStoreSnapshot.swift"
ENCODER = "Sources/StoreProtocol/Snapshot/SnapshotEncoder.swift"
MEMORY = "Sources/MemoryStore/MemoryStore.swift"
TABLE_STORE = "Sources/StoreBuildingBlocks/SnapshotTableStore.swift"
FILEIO = "Sources/StoreFiles/FileIO.swift"
JSON_STORE = "Sources/JSONStore/JSONStore.swift"
JSON_STATE = "Sources/JSONStore/JSONStoreState.swift"
JOURNAL = "Sources/JSONStore/Journal.swift"
BASE = "Sources/JSONStore/BaseFile.swift"
FRAME = "Sources/LogStore/Frame.swift"
SEGMENTS = "Sources/LogStore/Segments.swift"
LOG_STATE = "Sources/LogStore/LogState.swift"
LOG_SAVE = "Sources/LogStore/LogStore+Save.swift"
SEGMENT_READER = "Sources/LogStore/SegmentReader.swift"
SNAPSHOT_JSON = "Sources/StoreBuildingBlocks/SnapshotJSON.swift"
TABLE_LOAD = "Sources/StoreBuildingBlocks/SnapshotTable+Load.swift"
BASE_HISTORY = "Sources/JSONStore/BaseFile+History.swift"
ATTRIBUTES = "Sources/StoreProtocol/Model/ModelAttributes.swift"
COMPARISON = "Sources/StoreProtocol/Query/QueryComparison.swift"
SORT_KEY = "Sources/StoreProtocol/Query/QuerySortKey.swift"
COMPILED = "Sources/StoreBuildingBlocks/CompiledQueryExpression.swift"
EVALUATOR = "Sources/StoreBuildingBlocks/QueryEvaluator.swift"
ATTRIBUTE_INDEX = "Sources/StoreBuildingBlocks/AttributeIndex.swift"
CANDIDATES = "Sources/StoreBuildingBlocks/IndexedCandidates.swift"
COLUMN_FILTER = "Sources/StoreBuildingBlocks/ColumnFilter.swift"
TRANSLATION_CACHE = "Sources/StoreProtocol/Query/QueryTranslationCache.swift"
TRANSLATABLE = "Sources/StoreProtocol/Query/PredicateExpressions+QueryTranslatable.swift"
COLUMN_SCAN = "Sources/StoreBuildingBlocks/ColumnScan.swift"
IDENTICAL = "Sources/StoreProtocol/Snapshot/SnapshotValue+Identical.swift"
TOP_ROWS = "Sources/StoreBuildingBlocks/TopRows.swift"
RELATIONSHIPS = "Sources/StoreProtocol/Container/ModelContext+Relationships.swift"
UNDO = "Sources/StoreProtocol/Container/ModelContext+Undo.swift"
UPSERT = "Sources/StoreProtocol/Container/ModelContext+Upsert.swift"
REGISTRATIONS = "Sources/StoreProtocol/Container/RegistrationTable.swift"
CHUNKS = "Sources/StoreBuildingBlocks/SortedChunks.swift"
TO_MANY = "Sources/StoreProtocol/Store/ToManyChange.swift"
TIME_RANGE = "Sources/LogStore/TimeRange.swift"
SCHEMA = "Sources/StoreProtocol/Model/Schema.swift"
ROW_MIGRATION = "Sources/StoreProtocol/Migration/SchemaChange.swift"
MIGRATOR = "Sources/StoreProtocol/Migration/SchemaMigrator.swift"
LIGHTWEIGHT = "Sources/StoreProtocol/Migration/Lightweight.swift"
MIGRATION_REQUEST = "Sources/StoreProtocol/Migration/DataStoreMigrationRequest.swift"
SYNC_PUSH = "Sources/StoreSync/SyncRound+Push.swift"
SYNC_PULL = "Sources/StoreSync/SyncRound+Pull.swift"
SYNC_STAMP = "Sources/StoreSync/SyncRound+Stamp.swift"
SYNC_ROUND = "Sources/StoreSync/SyncRound.swift"
SYNC_MERGE = "Sources/StoreSync/Merge.swift"
SYNC_SESSION = "Sources/StoreSync/MergeSession.swift"
SYNC_RESOLVER = "Sources/StoreSync/ConflictResolver.swift"
SYNC_SCHEMA = "Sources/StoreSync/SchemaCheck.swift"
SYNC_CLOCK = "Sources/StoreSync/HybridLogicalClock.swift"
SYNC_TIMESTAMP = "Sources/StoreSync/HybridLogicalTimestamp.swift"
SYNC_ROWS = "Sources/StoreSync/SyncStateRows.swift"


def m(id, area, file, what, find, replace, equivalent=None):
    mutation = {"id": id, "area": area, "file": file, "what": what, "find": find, "replace": replace}
    if equivalent:
        mutation["equivalent"] = equivalent
    return mutation


MUTATIONS = [
    # The table: rows, upserts, unique indices, undo.
    m("T01", "table", TABLE, "an insert whose id is stored no longer updates it unless a unique attribute collides",
      "let existingKey = rows.slotByKey[id.primaryKey] != nil ? id.primaryKey : rows.collision(with: snapshot.values, excluding: nil)",
      "let existingKey = rows.collision(with: snapshot.values, excluding: nil)"),
    m("T02", "table", TABLE, "an update for a row another writer deleted resurrects it",
      "guard let stored = updatedRows[id.entityName]?.last(where: { $0.persistentIdentifier == id }) ?? rows.row(id.primaryKey) else { continue }",
      "let stored = updatedRows[id.entityName]?.last(where: { $0.persistentIdentifier == id }) ?? rows.row(id.primaryKey) ?? DefaultSnapshot(persistentIdentifier: id, values: [:])"),
    m("T03", "table", TABLE, "a failed save's undo steps replayed in forward order",
      "for step in undo.reversed() {", "for step in undo {"),
    m("T04", "table", TABLE, "slot compaction after mass deletes does not re-map keys",
      "slotByKey[row.persistentIdentifier.primaryKey] = live.count\n", "\n"),
    m("T05", "table", TABLE, "a changed row's old unique values stay in the index",
      "removeFromIndices(old, sequence: sequence)\n            slots[slot] = snapshot", "slots[slot] = snapshot"),
    m("T06", "table", TABLE, "a removed row's unique values stay in the index",
      "removeFromIndices(old, sequence: sequences[slot])\n        slots[slot] = nil", "slots[slot] = nil"),
    m("T17", "table", TABLE, "the undo of a failed save puts a deleted row back at the end, not in its place",
      "case .deleted(let previous, let place): rows.restore(previous, at: place)", "case .deleted(let previous, _): try? rows.put(previous)"),
    m("T07", "table", SCHEMA, "nil values collide on unique constraints",
      "guard let value = values[name], value != .null else { return nil }", "guard let value = values[name] else { return nil }"),
    m("T08", "table", TABLE, "a row collides with itself when it is rewritten",
      "if owner != primaryKey { return (constraint, owner) }", "return (constraint, owner)"),
    m("T09", "table", TABLE, "tombstones keep every attribute, not only the preserved ones",
      "let preserved = stored.values.filter { rows.entity.preservedOnDeletion.contains($0.key) }", "let preserved = stored.values"),
    m("T10", "table", TABLE, "an update that changes nothing is still recorded",
      "guard !changed.isEmpty else { continue }\n                undo.append(.replaced(stored))",
      "undo.append(.replaced(stored))"),
    m("T11", "table", TABLE, "a unique collision's update takes the new model's id instead of keeping the stored one",
      'merged["id"] = stored.values["id"]', "_ = stored"),
    m("T12", "table", TABLE, "a unique collision is not reported as a remapped identifier",
      "result.remappedIdentifiers[id] = stored.persistentIdentifier", "_ = id"),
    m("T13", "table", TABLE, "count includes deleted slots",
      "entities[entityName]?.slotByKey.count ?? 0", "entities[entityName]?.slots.count ?? 0"),
    m("T14", "table", TABLE, "a delete of a row that is gone records a change",
      "guard let stored = rows.row(id.primaryKey), let place = rows.place(of: id.primaryKey) else { continue }",
      "let stored = rows.row(id.primaryKey) ?? DefaultSnapshot(persistentIdentifier: id, values: [:])\n                let place = rows.place(of: id.primaryKey) ?? EntityRows.Place(slot: 0, sequence: 0)"),
    m("T15", "table", TABLE, "an update with a unique collision is not refused",
      "if let (constraint, owner) = collidingConstraint(with: snapshot.values, excluding: key) {",
      "if false, let (constraint, owner) = collidingConstraint(with: snapshot.values, excluding: key) {"),
    m("T16", "table", TABLE, "updatedAttributes of an update lists every attribute",
      "let changed = target.changedAttributes(from: stored.values)\n                guard !changed.isEmpty else { continue }\n                undo.append(.replaced(stored))",
      "let changed = target.changedAttributes(from: stored.values).isEmpty ? [] : Array(target.values.keys).sorted()\n                guard !changed.isEmpty else { continue }\n                undo.append(.replaced(stored))"),
    m("T18", "table", TABLE, "an update writes the whole snapshot, not the attributes the save names (the lost update)",
      "values: try request.storedValues(updating: stored.values, with: snapshot, entity: rows.entity))",
      "values: snapshot.values)"),
    m("T19", "table", TO_MANY, "a to-many change replaces the stored members with the saving context's (finding A: a concurrent add is lost)",
      "var kept = Self.members(of: stored).filter { !removedSet.contains($0) }", "var kept = [SnapshotValue]()"),
    m("R15", "context", CONTEXT_SAVE, "a save sends a changed to-many relationship as its whole array, not the members added and removed",
      "toManyChanges: plan.toManyChanges))", "toManyChanges: [:]))"),

    # Queries over snapshots and paging.
    m("Q01", "query", QUERY, "sorting by only the first SortDescriptor", "for sort in sortBy {", "for sort in sortBy.prefix(1) {"),
    m("Q02", "query", QUERY, "the no-predicate, no-sort fast path ignores offset and limit",
      "return Array(descriptor.page(Array(snapshots)))", "return Array(snapshots)"),
    m("Q03", "query", QUERY, "the id fast path ignores offset and limit",
      "return Array(descriptor.page(snapshots.filter { $0.persistentIdentifier.primaryKey == key }))",
      "return snapshots.filter { $0.persistentIdentifier.primaryKey == key }"),
    m("Q04", "query", QUERY, "a predicate that throws selects nothing instead of failing",
      'throw DataStoreError(.invalidPredicate, "The predicate could not be evaluated on \\(T.self): \\(error).")', "return false"),
    m("Q05", "query", QUERY, "a descending sort is read as ascending",
      "case .orderedDescending: return false", "case .orderedDescending: return true"),
    m("Q06", "query", QUERY, "the id fast path matches any id",
      "if let equal = expression as? PredicateExpressions.Equal<Attribute, Constant>, isID(equal.lhs) {\n            return PersistentIdentifier.primaryKey(equal.rhs.value)",
      "if let equal = expression as? PredicateExpressions.Equal<Attribute, Constant>, !isID(equal.lhs) {\n            return PersistentIdentifier.primaryKey(equal.rhs.value)"),
    m("P01", "query", DESCRIPTOR, "fetchOffset ignored", "let start = min(results.count, max(0, fetchOffset ?? 0)) + results.startIndex",
      "let start = results.startIndex"),
    # Queries pushed down to stored values.
    m("Q07", "query", COMPARISON, "!= on stored values answers ==",
      "case .notEqual: return Self.equal(lhs, rhs).map(!)", "case .notEqual: return Self.equal(lhs, rhs)"),
    m("Q08", "query", SORT_KEY, "nil sorts last instead of first", "case (.null, _): result = .orderedAscending",
      "case (.null, _): result = .orderedDescending"),
    m("Q09", "query", COMPILED, "|| is true when its left side is false",
      "if a == true { return .bool(true) }", "if a == false { return .bool(true) }"),
    m("Q10", "query", TOP_ROWS, "the top-k heap breaks ties by the later row",
      "return a.position < b.position", "return a.position > b.position"),
    m("Q21", "query", TOP_ROWS, "the streaming top-k passes over a row that ties the worst kept on its first key",
      "firstKey.compare(first, heap[0].first) == .orderedDescending", "firstKey.compare(first, heap[0].first) != .orderedAscending"),
    # Indexes and time ranges narrowing what a query reads.
    m("Q11", "query", TABLE, "an equality index is not updated when a row is deleted or replaced",
      "for index in indexes.indices { indexes[index].remove(snapshot.values, primaryKey: key, sequence: sequence) }", ""),
    m("Q12", "query", ATTRIBUTE_INDEX, "an index keeps rows by their stored value, not as the query reads it",
      "guard let value = attribute.value(in: values) else {\n            unreadable.insert(primaryKey)",
      "guard let value = values[attribute.name] ?? (attribute.isOptional ? .null : nil) else {\n            unreadable.insert(primaryKey)"),
    m("Q13", "query", COLUMN_FILTER, "an operand under || is looked up and scanned as if under &&",
      "if case let .and(lhs, rhs) = operand {", "if case let .and(lhs, rhs) = operand {\n                pending.append(rhs)\n                pending.append(lhs)\n            } else if case let .or(lhs, rhs) = operand {"),
    m("Q14", "query", TIME_RANGE, "a log time range reads a lower bound as an upper bound",
      "case .greaterThan, .greaterThanOrEqual: lower = max(lower, bound)", "case .greaterThan, .greaterThanOrEqual: upper = min(upper, bound)"),
    m("Q22", "query", ATTRIBUTE_INDEX, "an equality bucket keeps a row that was removed",
      "if other != primaryKey { buckets[key] = .one(other) }", "buckets[key] = .one(other)"),
    m("Q15", "query", ATTRIBUTE_INDEX, "a range lookup leaves out the rows holding nil",
      "guard collect(from: null, to: null, into: &keys, limit: limit),\n              collect(", "guard collect(",
      equivalent="a translated comparison with <, <=, > or >= never names an optional attribute (#Predicate has no < on "
                 "optionals; they go through ?? or flatMap, which no lookup reads), so no nil row is in such a range; "
                 "the lookup keeps them as a superset in case a query ever does"),
    m("Q16", "query", CANDIDATES, "two bounds on one attribute keep the looser lower bound",
      "range.lower.map({ $0.key < lower.key ||", "range.lower.map({ lower.key < $0.key ||"),
    m("Q17", "query", ATTRIBUTE_INDEX, "a descending walk hands rows with one value on last-inserted first",
      "for held in run.reversed() where !body(held.key, held.primaryKey) {\n                    stopped", "for held in run where !body(held.key, held.primaryKey) {\n                    stopped"),
    m("Q18", "query", CANDIDATES, "a walk stops at the row that fills the page, before the rows tied with it",
      "if let lastValue, value != lastValue { return false }", "if lastValue != nil { return false }"),
    m("Q19", "query", CANDIDATES, "a walk ignores NaN in a later sort key",
      "guard let value = key.attribute.value(in: row.values), !IndexKey.isNaN(value) else { return nil }",
      "guard key.attribute.value(in: row.values) != nil else { return nil }"),
    # The table's columns of query attributes, which scans decide on.
    m("Q23", "query", TABLE, "a replaced row's columns keep its old values",
      "for column in columns.indices { columns[column].write(snapshot.values, at: slot) }", ""),
    m("Q24", "query", TABLE, "compaction leaves the columns in the old slots",
      "for column in columns.indices { columns[column].compact(keeping: liveSlots) }", ""),
    m("Q25", "query", COLUMN_SCAN, "a limited sort passes over a row that ties the worst kept on a typed first key",
      "let v = reals[slot]\n            return descending ? v < w : v > w", "let v = reals[slot]\n            return descending ? v <= w : v >= w"),
    m("Q27", "query", COLUMN_SCAN, "a limited sort by one typed key breaks ties by the later row",
      "return a.slot < b.slot", "return a.slot > b.slot"),
    m("Q26", "query", COLUMN_FILTER, "a typed comparison keeps a row whose value is nil or kept aside",
      "matches = result\n                        } else {", "matches = true\n                        } else {"),
    m("Q20", "query", CHUNKS, "a chunk splits at the wrong place and loses its order",
      "chunks.insert(upper, at: chunk + 1)", "chunks.insert(upper, at: chunk)"),
    # The cache of predicate translations by shape (QueryTranslationCacheTests).
    m("P90", "query", TRANSLATION_CACHE, "two predicates of one expression type with other key paths share a translation",
      "        shape.keyPaths.append(keyPath)\n", ""),
    m("P91", "query", TRANSLATABLE, "two predicates of one expression type with other comparison operators share a translation",
      "case .lessThanOrEqual: reader.add(operator: 1)", "case .lessThanOrEqual: reader.add(operator: 0)"),
    m("P92", "query", TRANSLATION_CACHE, "a NaN value put into a cached translation is not folded",
      "return .expression(reader.hasNaN ? expression.foldingNaNComparisons() : expression)", "return .expression(expression)"),
    m("P93", "query", TRANSLATION_CACHE, "a value bound by optional chaining is put in where it is unwrapped, not where it is used",
      ".ifPresent(wrapped.substituting(values), then: then.substituting(values))", ".ifPresent(wrapped.substituting(values), then: then)"),
    m("P02", "query", DESCRIPTOR, "fetchLimit off by one", "min(results.endIndex, start + max(0, $0))", "min(results.endIndex, start + max(0, $0) + 1)"),

    # Relationships in the context.
    m("R01", "context", RELATIONSHIPS, "a member added to a to-many side does not get its inverse set",
      "                    inverseAccess.add(member, registration.model)\n", "\n"),
    m("R02", "context", RELATIONSHIPS, "a member taken out of a relationship keeps naming its former owner",
      "                    inverseAccess.remove(former, registration.model)\n", "\n"),
    m("R03", "context", RELATIONSHIPS, "a cascade is not applied",
      "for model in order.dropFirst(deleted.count) { deleteAny(model) }", "_ = order"),
    m("R04", "context", RELATIONSHIPS, "deny is not checked",
      "if let kept = ownMembers(of: model, relationship, in: entity).first(where: { !deleting.contains($0.persistentModelID) }) {",
      "if let kept = ownMembers(of: model, relationship, in: entity).first(where: { _ in false }) {"),
    m("R05", "context", RELATIONSHIPS, "a dangling reference stays in the baseline, so that loading makes the context dirty",
      "        if pruned { registration.baseline = baseline }", "        _ = pruned"),
    m("R06", "context", RELATIONSHIPS, "a to-one inverse taken by another model stays with its former owner too",
      "                        access.remove(previous, member)\n", "\n"),
    m("R07", "context", RELATIONSHIPS, "nullify leaves the inverse naming the deleted model",
      "                    inverseAccess.remove(member, model)\n", "\n"),
    m("R09", "context", CONTEXT_FETCH, "a predicate that follows a relationship is left to the store, on models without it",
      "entity?.relationships.isEmpty == false && FetchQuery(descriptor).needsModels",
      "false && FetchQuery(descriptor).needsModels"),
    m("R10", "context", RELATIONSHIPS, "a model the context holds is not read again when a relationship names it",
      "if !confirmed.contains(id) && (gone.isEmpty || !gone.contains(id)) && seen.insert(id).inserted {",
      "if registrations[id] == nil && (gone.isEmpty || !gone.contains(id)) && seen.insert(id).inserted {"),
    m("R11", "context", CONTEXT_FETCH, "a fetch with pending changes judges a model with relationships before they are set",
      "            } else if hasRelationships {\n", "            } else if false {\n"),
    m("R12", "context", CONTEXT_FETCH, "without pending changes, a following predicate still sees unsaved values",
      "candidates = try candidates.filter { try SnapshotQuery.matches(predicate, $0.probe) }",
      "candidates = try candidates.filter { try SnapshotQuery.matches(predicate, $0.model) }"),
    m("R08", "context", RELATIONSHIPS, "related new models are not inserted with their owner",
      "            if let refusal = insertRelatedModels().first { throw refusal }\n            try bringRelationshipsInStep()",
      "            try bringRelationshipsInStep()"),
    m("C90", "context", RELATIONSHIPS, "inverses are brought in step from the last saved values: a change made after processPendingChanges is undone by the save",
      "let before = registration.relationshipsInStep?[relationship.name]\n                    ?? relationship.identifiers(in: registration.baseline ?? [:])",
      "let before = relationship.identifiers(in: registration.baseline ?? [:])"),
    m("C91", "context", CONTEXT_TRACKING, "a new model deleted before its save stays in its inverses, so the save inserts it again",
      "                registrations[id] = nil\n                takeOutOfInverses(model, registration.entity)\n",
      "                registrations[id] = nil\n"),
    m("C92", "context", RELATIONSHIPS, "a new model deleted before a save, still in a to-many by hand, is inserted again by the save's walk",  # InverseAfterProcessPendingChangesTests.deletingANewModelAppendedToTheToManyDoesNotSaveIt
      "if wasDeletedWhileNew(member) {", "if false {"),
    m("C93", "context", RELATIONSHIPS, "a deleted model with unsaved changes cascades over (and is denied by) a member another context moved elsewhere",  # StaleOwnerDeleteRuleTests
      "return members.filter { member in inverseAccess.members(member).contains { $0 === model } }", "return members"),
    m("I01", "context", "Sources/StoreProtocol/Container/ModelContext+Enumerate.swift", "enumerate's mutation check misses a change to a model that was already changed",  # EnumerateMutationCheckTests
      "return change.state == other.state && SnapshotValue.object(change.values).isIdentical(to: .object(other.values))", "return change.state == other.state"),
    m("I03", "context", CONTEXT_TRACKING, "a batch delete whose predicate reads a relationship is decided by the store on its rows",  # conformance relationships/aBatchDeleteByARelationshipDeletesWhatItSelects
      "if let predicate, mayFollowRelationships(FetchDescriptor<T>(predicate: predicate)) {", "if let predicate, false, mayFollowRelationships(FetchDescriptor<T>(predicate: predicate)) {"),
    m("I02", "context", "Sources/StoreProtocol/Container/ModelContext+Enumerate.swift", "enumerate's mutation check is skipped when the context had changes",  # EnumerateMutationCheckTests
      "let before = allowEscapingMutations ? nil : try unsavedChanges()", "let before = allowEscapingMutations || hasChanges ? nil : try unsavedChanges()"),
    m("R13", "context", RELATIONSHIPS, "a model another context tracks is inserted into this one through a relationship",
      "        if let refusal = refusal(of: member, in: relationship, of: owner, asReferrer: asReferrer) { return refusal }",
      "        if false, let refusal = refusal(of: member, in: relationship, of: owner, asReferrer: asReferrer) { return refusal }"),
    m("R14", "context", REGISTRATIONS, "a model deleted and saved is forgotten, so a relationship stores it again",
      "release(old, deleted: true)", "release(old)"),

    # History: tokens, expiry, retention, merging.
    m("H01", "history", HISTORY, "history after a token includes the token's own transaction",
      "if records[mid].transactionNumber <= position { low = mid + 1 } else { high = mid }",
      "if records[mid].transactionNumber < position { low = mid + 1 } else { high = mid }"),
    m("H02", "history", HISTORY, "a token exactly at the deletion watermark reads as expired",
      "guard position >= expiredThrough else {", "guard position > expiredThrough else {"),
    m("H03", "history", HISTORY, "a token one ahead of the store is accepted",
      "guard position <= lastTransactionNumber else {", "guard position <= lastTransactionNumber + 1 else {"),
    m("H04", "history", HISTORY, "deleting history up to a transaction does not expire older tokens",
      "records.removeAll { $0.transactionNumber <= bound }\n        expiredThrough = bound", "records.removeAll { $0.transactionNumber <= bound }"),
    m("H05", "history", HISTORY, "retention by count keeps one transaction too many",
      "if let maximum = retention.maximumTransactions, count > max(0, maximum) {",
      "if let maximum = retention.maximumTransactions, count > max(0, maximum) + 1 {"),
    m("H06", "history", HISTORY, "deleting chosen transactions does not expire tokens before them",
      "expiredThrough = max(expiredThrough, newest)", "_ = newest"),
    m("H07", "history", HISTORY, "erasing forgets the transaction counter's watermark",
      "expiredThrough = lastTransactionNumber", "expiredThrough = 0"),
    m("H08", "history", TOKEN, "equal tokens compare as less", "if left < right { someBehind = true }", "if left <= right { someBehind = true }"),
    m("H09", "history", CONTAINER_HISTORY, "merged tokens do not advance with the transactions of several stores",
      "positions[transaction.storeIdentifier] = transaction.transactionIdentifier", "_ = positions"),
    m("H10", "history", CONTAINER_HISTORY, "several stores' transactions are not merged in time order",
      "if (candidate.timestamp, candidate.storeIdentifier) < (current.timestamp, current.storeIdentifier) {",
      "if (candidate.storeIdentifier) < (current.storeIdentifier) {"),
    m("H11", "history", CONTAINER_HISTORY, "without a sort, each store is asked for its whole history, the limit applied after",
      "query.fetchLimit = limit", "query.fetchLimit = nil"),
    m("H12", "history", HISTORY, "an erase takes no transaction number: the newest token resumes into history written after it",
      "lastTransactionNumber += 1\n        expiredThrough = lastTransactionNumber", "expiredThrough = lastTransactionNumber"),
    m("H13", "history", CONTAINER_HISTORY, "a token compared in a predicate is not checked for expiry",
      "try checkPredicateTokens(descriptor, sources: sources)", "_ = sources"),
    m("H14", "history", "Sources/StoreProtocol/History/HistoryDescriptor.swift", "a history limit of 0 returns one transaction",
      "if sortBy.isEmpty, let fetchLimit, fetchLimit <= 0 { return result }", "_ = result"),

    # The context's bookkeeping around relationships (ContextBookkeepingTests).
    m("H15", "context", BACKING, "a new model appended to a held model's to-many is not inserted until the save",
      "            insertNewMembers(members, appendedOnly: appendedOnly)", "            if !appendedOnly { insertNewMembers(members, appendedOnly: appendedOnly) }"),
    m("H16", "context", CONTEXT_TRACKING, "rollback leaves a dropped insert a referrer of the held model, so a save stores it",
      "                forgetAsReferrer(registration.model, registration.entity)\n", ""),
    m("H17", "context", CONTEXT_TRACKING, "a batch delete leaves the deleted models in the held models' relationships",
      "        if !deleted.isEmpty { takeOutOfHeldRelationships(deleted, ofEntityNamed: T.entityName) }", ""),
    m("H18", "context", CONTEXT_TRACKING, "an insert outside the schema is no pending change",
      "!secondInstances.isEmpty || !unknownInserts.isEmpty ||", "!secondInstances.isEmpty ||"),
    m("H19", "context", BACKING, "a new model set to a held model through its to-one is not inserted at once",
      "                context.insertNewlyRelated(model)\n", "                _ = context\n"),
    m("V01", "context", BACKING, "a new model whose to-many takes a held model is not inserted into its context",
      "heldBy?.insertNewlyRelated(model, asOwnerOfHeldModel: true)", "_ = heldBy"),
    m("V02", "context", CONTEXT_TRACKING, "an owner inserted through a held member is not noted as such (another container's insert is refused)",
      "            registration.insertedAsOwnerOfHeldModel = true\n", "            _ = registration\n"),
    m("V03", "context", BACKING, "an append to a new model's to-many looks at its last member only",
      "            start = seen.count\n", "            start = members.count - 1\n"),
    m("V04", "context", BACKING, "an in-place growth of a new model's to-many looks past the members seen even after an insert before the end",
      "           seen.count > 0, ObjectIdentifier(members[seen.count - 1]) == seen.last {", "           seen.count > 0 {"),
    m("V05", "context", BACKING, "a new member of a new owner's to-many does not record the owner, so inserting the member drops the owner",  # NewOwnerOfAHeldModelTests.aNewOwnerOfANewMemberIsInsertedWithTheMember
      "                backing.referrers[ObjectIdentifier(model)] = WeakModel(model: model)", "                _ = backing"),
    m("Z01", "context", IDENTICAL, "a save compares doubles with ==, so -0 set for 0 is stored as no change",  # IdenticalValueSaveTests
      "        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern", "        case let (.double(a), .double(b)): return a == b"),
    m("Z02", "context", IDENTICAL, "a save compares strings with ==, so a canonically equivalent spelling is stored as no change",  # IdenticalValueSaveTests
      "        case let (.string(a), .string(b)): return Self.sameUTF8(a, b)", "        case let (.string(a), .string(b)): return a == b"),
    m("Z03", "context", CONTEXT_TRACKING, "deleting another container's model is accepted and registers it here",  # RelationshipOwnershipTests.deletingAModelOfAnotherContainerIsRefused
      "                + \"instance tracked by two contexts. Delete it through a context of its own container; nothing was saved.\"))\n            return",
      "                + \"instance tracked by two contexts. Delete it through a context of its own container; nothing was saved.\"))"),
    m("Z04", "files", "Sources/StoreFiles/RegularFileOpening.swift", "a directory opened for writing where a store keeps a file is an ioFailure, not invalidConfiguration",  # DamagedLogFileTests.aDirectoryWhereTheLockBelongsIsAConfigurationError
      "code == ENOTDIR || code == EISDIR, let kind", "code == ENOTDIR, let kind"),

    # The context: identity map, change tracking, rollback, ordering.
    m("C14", "context", CONTEXT_SAVE, "a model let go is forgotten before inverses are in step",
      "        try processPendingChanges()\n        forgetModelsNoOneHolds()", "        forgetModelsNoOneHolds()\n        try processPendingChanges()"),
    m("C15", "context", CONTEXT_TRACKING, "a model changed and let go is forgotten without being compared",
      "registration.state == .persisted && registration.isHeldOnlyByTheContext && (try? registration.isDirty()) == false\n",
      "registration.state == .persisted && registration.isHeldOnlyByTheContext\n"),
    m("C16", "context", CONTEXT_TRACKING, "a model still held elsewhere is forgotten",
      "registration.state == .persisted && registration.isHeldOnlyByTheContext &&", "registration.state == .persisted &&"),
    m("U01", "context", UNDO, "undo applies what the group did instead of what was before it",
      "context.apply(group.reversed().map { ($0, $0.before) })", "context.apply(group.reversed().map { ($0, $0.after) })"),
    m("U02", "context", CONTEXT_SAVE, "after a save, the undo checkpoint still says inserted and deleted",
      "        deletedWhileNew.removeAll()\n        refreshUndoCheckpoint()",
      "        deletedWhileNew.removeAll()"),
    m("U03", "context", UNDO, "undo restores attributes but not relationships",
      "                access.setMembers(change.model, members)", "                _ = (access, members)"),
    m("U04", "context", UNDO, "undo right after a change undoes the group before it (the open group is not closed first)",
      "    public func undo() {\n        context?.closeOpenUndoGroup()\n", "    public func undo() {\n"),
    m("U05", "context", UNDO, "an undo leaves the models it touched out of the checkpoint, so the next save records them as a change",
      "recorder.checkpoint[id] = registrations[id].map { ($0.model, state(of: $0)) }", "recorder.checkpoint[id] = nil"),
    m("U06", "context", UNDO, "an undo sets back every attribute, another context's save a fetch brought in too",
      "                    for name in names { current[name] = values[name] ?? .null }\n", "                    _ = names\n                    current = values\n"),
    m("U07", "context", CONTEXT_FETCH, "a fetch's refresh is taken for a change of this context, and undone",
      "                takeStoredValuesIntoUndoCheckpoint(snapshot.persistentIdentifier,\n                    changed: snapshot.changedAttributes(from: baseline), stored: snapshot.values)",
      "                _ = baseline"),
    m("U08", "context", CONTEXT_SAVE, "undoing a saved upsert deletes the stored row (its insert is recorded as an insert)",
      "        refreshUndoCheckpoint()\n        recordUpsertsForUndo()\n", "        refreshUndoCheckpoint()\n"),
    m("U10", "context", CONTEXT_SAVE, "undoing a saved upsert into a held model leaves it upserted (the merge is not in the group)",
      "            try bringRelationshipsInStep()\n            foldMergedUpsertsIntoUndoGroup()\n", "            try bringRelationshipsInStep()\n"),
    m("U09", "context", CONTEXT_FETCH, "a fetch with unsaved changes leaves clean models stale",
      "                let _: T = try materialize(snapshot)\n                if pending {", "                if pending {"),
    m("C21", "context", CONTEXT_SAVE, "a save sends no changed attributes: the store writes whole snapshots (the lost update)",
      "plans[storeIndex].updatedAttributes[id] = Set(changed)", "_ = changed"),
    m("C17", "context", UPSERT, "an insert colliding with a held or related stored model is sent to the store as it is",
      "            guard let target, target !== insert else {",
      "            guard let target, target !== insert, false else {"),
    m("C22", "context", CONTEXT_SAVE, "after an upsert, the stored model's former related models keep naming it",
      "        if try mergeInsertsIntoStoredModels() {\n", "        if try mergeInsertsIntoStoredModels() && false {\n"),
    m("C20", "context", UPSERT, "after an upsert, models that named the inserted instance still name it",
      "members.map { $0 === inserted ? target.model : $0 }", "members.map { $0 }"),
    m("C18", "context", CONTEXT_TRACKING, "a second instance inserted with a held model's id is dropped, not upserted",
      "            secondInstances.append(TypedRegistration(model: model, entity: existing.entity, baseline: nil, state: .inserted, order: takeOrder()))\n",
      "\n"),
    m("C23", "context", CONTEXT_SAVE, "a stored model whose id changed is saved (its change silently lost) instead of refused",
      "if registration.state != .inserted, registrations[id] !== registration {", "if false {"),
    m("C24", "context", CONTAINER, "every model type is routed to the first store, whichever configuration holds it",
      "if let index = route[entity.name] { byType[ObjectIdentifier(entity.modelType)] = index }",
      "if route[entity.name] != nil { byType[ObjectIdentifier(entity.modelType)] = 0 }"),
    # Watching @Observable models (issue 16): a save skips settled models, so each of these loses a change.
    m("W03", "context", CONTEXT_REGISTRATION, "a model counts as settled whether or not a property was set since it was settled",
      "heldBaselineWhenSettled && !backing.hasChanges", "heldBaselineWhenSettled"),
    m("W05", "context", CONTEXT_TRACKING, "deleting a settled model does not make the next save look at it",
      "                registration.deleteOrder = takeOrder()\n                registrations.unsettle(id)\n",
      "                registration.deleteOrder = takeOrder()\n"),
    m("W06", "context", REGISTRATIONS, "a new registration is not counted as unsettled",
      "            hold(newValue, as: identifier)\n            unsettled[identifier] = newValue\n",
      "            hold(newValue, as: identifier)\n"),
    m("W07", "context", CONTEXT_TRACKING, "settled models are never looked at again, so those no one holds are never forgotten",
      "if registrations.count >= 2 * max(countAfterFullSweep, 512) {", "if false {"),
    m("B01", "context", BACKING, "an @Model model's first change is not reported, so a save skips the settled model",
      "if let tracker, let trackedIdentifier { tracker.append(trackedIdentifier) }", "_ = tracker"),
    m("B02", "context", BACKING, "settling an @Model model keeps its changed bits",
      "        changedProperties.removeAll()\n        reportedChange = false\n", "        reportedChange = false\n"),
    m("B03", "context", CONTEXT_SAVE, "a save that does not reach its store forgets the changed bits it took",
      "for (backing, changes) in taken.joined() { backing.restoreChanges(changes) }",
      "for (backing, changes) in taken.joined() { _ = (backing, changes) }"),
    m("B06", "context", BACKING, "a model deleted and saved is not remembered as deleted, so a relationship stores it again",
      "if deleted { deletion = ModelDeletion(container: log.container) }", "_ = deleted"),
    m("B07", "context", BACKING, "a model tracked again after its deletion is still refused as deleted",
      "        trackedIdentifier = identifier\n        deletion = nil\n", "        trackedIdentifier = identifier\n"),
    m("B05", "context", RELATIONSHIPS, "a new @Model model linked only through its own to-one is not inserted with its destination",
      "            for referrer in newReferrers(of: registration) {", "            for referrer in [] as [(model: any PersistentModel, relationship: Schema.Relationship, registration: Registration)] {"),
    m("B04", "context", CONTEXT_REGISTRATION, "an @Model update names every property set, also one set back to its stored value",
      "!(current[names[index]] ?? .null).isIdentical(to: baseline[names[index]] ?? .null) else { return nil }", "true else { return nil }"),
    m("C19", "context", CONTEXT_SAVE, "an insert that became an update takes the stored values over a change made while saving",
      "            if since != stored.values { try? registration.model.assignStoredValues(since) }\n", "\n"),
    m("C01", "context", REGISTRATIONS, "changes sent in registration-table order, not the order they were made",
      "            look.found.sort { $0.order < $1.order }\n", "\n"),
    m("C02", "context", CONTEXT_SAVE, "deletes sent in table order, not the order they were made",
      "plan.deleted.sort { $0.0.deleteOrder < $1.0.deleteOrder }", "_ = plan.deleted"),
    m("C03", "context", CONTEXT_TRACKING, "rollback keeps changed values", "if let baseline = registration.baseline { try? restore(registration, to: baseline) }",
      "_ = registration.baseline"),
    m("C04", "context", CONTEXT_TRACKING, "an insert deleted before its save is still deleted in the store (and re-sent)",
      "            case .inserted:\n                registrations[id] = nil\n                takeOutOfInverses(model, registration.entity)\n                deletedWhileNew",
      "            case .inserted:\n                registration.state = .deleted\n                takeOutOfInverses(model, registration.entity)\n                deletedWhileNew"),
    m("C05", "context", CONTEXT_SAVE, "a saved update's baseline is not advanced (the next save sends it again)",
      "registration.baseline = stored ?? snapshot.values", "_ = snapshot"),
    m("C06", "context", CONTEXT_SAVE, "a saved insert keeps no baseline (the next save sends every attribute again)",
      "registration.state = .persisted\n            registration.baseline = snapshot.values", "registration.state = .persisted"),
    m("C07", "context", CONTEXT_SAVE, "a collision's instance is not re-registered under the stored identifier",
      "registrations[storedID] = registration", "_ = storedID"),
    m("C08", "context", CONTEXT_REGISTRATION, "hasChanges ignores pending inserts and deletes",
      "guard state == .persisted, baseline != nil else { return state != .persisted }",
      "guard state == .persisted, baseline != nil else { return false }"),
    m("C09", "context", CONTEXT_TRACKING, "deleting an unregistered model is ignored",
      "        registration.deleteOrder = registration.order\n        registrations[id] = registration", "        _ = registration"),
    m("C10", "context", CONTEXT_FETCH, "fetchIdentifiers ignores the context's pending changes",
      "if try mayFollowRelationships(descriptor) || descriptor.includePendingChanges && hasPendingChanges(for: T.self) {\n            return try fetch(descriptor).map { $0.persistentModelID }",
      "if try mayFollowRelationships(descriptor) || false && hasPendingChanges(for: T.self) {\n            return try fetch(descriptor).map { $0.persistentModelID }"),
    m("C11", "context", CONTEXT_FETCH, "fetchCount ignores the context's pending changes",
      "if try mayFollowRelationships(descriptor) || descriptor.includePendingChanges && hasPendingChanges(for: T.self) {\n            return try fetch(descriptor).count",
      "if try mayFollowRelationships(descriptor) || false && hasPendingChanges(for: T.self) {\n            return try fetch(descriptor).count"),
    m("C12", "context", CONTEXT_FETCH, "fetch ignores pending changes",
      "let pending = try descriptor.includePendingChanges && hasPendingChanges(for: T.self)",
      "let pending = try false && hasPendingChanges(for: T.self)"),
    m("C13", "context", "Sources/StoreProtocol/Container/ModelContext+Enumerate.swift", "enumerate does not notice mutations during the enumeration",
      "if let before, try unsavedChanges() != before {", "if before != nil, false {"),

    # Snapshots and the coder.
    m("S01", "coder", SNAPSHOT, "an attribute set to nil is not a change",
      "for (name, value) in other where values[name] == nil && value != .null { changed.append(name) }", "_ = other"),
    m("S02", "coder", SNAPSHOT, "changed attributes compared by name only",
      "for (name, value) in values where !(other[name] ?? .null).isIdentical(to: value) { changed.append(name) }",
      "for (name, _) in values where other[name] == nil { changed.append(name) }"),
    m("S03", "coder", ENCODER, "unsigned values above Int64.max wrap around",
      "if let small = Int64(exactly: v) { return .int(small) }\n        return .unsigned(UInt64(v))",
      "if let small = Int64(exactly: v) { return .int(small) }\n        return .int(Int64(truncatingIfNeeded: v))"),

    # The memory store.

    m("M01", "memory", MEMORY, "a save that changes nothing records a transaction",
      "if !outcome.changes.isEmpty {\n                state.history.append", "if true {\n                state.history.append"),
    m("M03", "memory", TABLE_STORE, "fetchCount's fast path ignores offset and limit",
      "if descriptor.predicate == nil, !descriptor.isPaged {", "if descriptor.predicate == nil {"),
    m("M02", "memory", MEMORY, "retention is not applied after a save",
      "state.history.apply(configuration.historyRetention)", "_ = configuration.historyRetention"),
]

JSON_MUTATIONS = [
    # Durable files.
    m("F01", "files", FILEIO, "an append is acknowledged before it is flushed",
      "if sync { try fsyncOrThrow(fd, path: path) }", "_ = sync"),
    m("F02", "files", FILEIO, "a replacement is renamed into place before its data is flushed",
      "try fsyncOrThrow(fd, path: temporary)", "_ = temporary"),
    m("F03", "files", FILEIO, "a rename is not made durable (the directory is not flushed)",
      "didPerform(renaming)\n            try syncDirectory(of: path)", "didPerform(renaming)"),
    # The JSON store: journal, compaction, catch-up.
    m("J01", "json", JOURNAL, "a bad line followed by more than itself is taken for a torn tail",
      "if let declaredLength, bytes.count > declaredLength { return false }", "if declaredLength != nil { return true }"),
    m("J02", "json", JOURNAL, "a journal line's checksum is not checked",
      "guard CRC32.checksum(body) == expected, body.endIndex - (space + 1) == length else",
      "guard body.endIndex - (space + 1) == length else"),
    m("J03", "json", JSON_STATE, "an old entry after a newer one is skipped, not reported",
      "if entry.sequence <= journalSequence, fromJournalStart { return }", "if entry.sequence <= journalSequence { return }"),
    m("J04", "json", JSON_STATE, "a replaced base file is noticed only when none was read (stat-free catch-up)",
      "if try base?.isStill(at: files.base) != true {", "if base == nil {"),
    m("J05", "json", JSON_STATE, "a writer does not cut a torn tail before appending",
      "if scan.hasTornTail, cutTornTail {", "if scan.hasTornTail, cutTornTail, false {",
      equivalent="an append writes at the end of the last whole line, over the torn bytes; what is left of a longer "
                 "torn write reads as a torn tail again, so only reads cost more"),
    m("J06", "json", JSON_STATE, "compaction leaves the old journal in place",
      "if journal != nil {\n                try FileIO.replaceAtomically(files.journal, with: Data())",
      "if journal != nil, false {\n                try FileIO.replaceAtomically(files.journal, with: Data())"),
    m("J07", "json", JSON_STORE, "deletes are applied in memory but not journaled",
      "deletes.append(change.persistentIdentifier)", "_ = deletes"),
    m("J08", "json", JSON_STORE, "history retention is applied in memory but not journaled",
      "expiredThrough: state.history.retentionBound(configuration.historyRetention, pending: record)),",
      "expiredThrough: nil),"),
    m("J09", "json", JSON_STORE, "deleteHistory writes nothing",
      "guard !doomed.isEmpty else { return }", "guard doomed.isEmpty else { return }"),
    m("J10", "json", BASE, "the base file's checksum is not verified",
      "CRC32.checksum(data.prefix(covered)) == expected else {", "true else {"),
    m("J11", "json", JSON_STORE, "compaction runs after every save, not when the journal outgrows the base",
      "if state.journalOffset > max(Int64(configuration.compactionThreshold), state.baseSize) {", "if state.journalOffset > 0 {",
      equivalent="compacting more often changes what a save costs, not what any read returns"),
    m("J12", "json", JOURNAL, "a bad last line written whole (newline there, no block never written) is cut as a torn tail",
      "if !hasUnwrittenBlock, bytes.last == UInt8(ascii: \"\\n\") { return false }", "if false { return false }"),
    m("J13", "json", JOURNAL, "zeros at the start of a journal (its first sector never written) are taken for a replaced journal",
      "if bytes.first == 0 { return true }", "if false { return true }"),
    m("J14", "json", BASE, "a base file's counters are not checked (a forged Int64.max traps the next save)",
      "try file.checkCounters(path: path)", "_ = file"),
    m("J15", "json", TABLE_LOAD, "two base rows with one id open with one dropped",
      "guard slotByKey.updateValue(slots.count, forKey: key) == nil else {", "if slotByKey.updateValue(slots.count, forKey: key) == .min {"),
    m("J16", "json", BASE, "a base file's entity listed twice is refused when the earlier listing's rows were malformed",
      "            malformed[name] = nil\n", "\n"),
    m("J17", "json", SNAPSHOT_JSON, "a 19-digit integer is read without overflow checking (9223372036854775808 wraps)",
      "guard digits >= 1, digits <= 18 else { return nil }", "guard digits >= 1, digits <= 19 else { return nil }"),
    # Issue 30's parser and writer fast paths; each killed by SnapshotJSONFastPathTests.
    m("E01", "json", SNAPSHOT_JSON, "a decimal read by the fast path loses the sign of -0.0",
      "return negative ? -value : value\n        }\n\n        /// 10^0", "return negative && value != 0 ? -value : value\n        }\n\n        /// 10^0"),
    m("E02", "json", SNAPSHOT_JSON, "a $date2001 written as the writer writes it is read as seconds since 1970",
      "if let seconds = numberAlone() { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }",
      "if let seconds = numberAlone() { return .date(Date(timeIntervalSince1970: seconds)) }"),
    m("E03", "json", SNAPSHOT_JSON, "a date tag's fast path takes a number followed by more keys for the tag alone",
      "let number = try? number(), position < bytes.count, bytes[position] == UInt8(ascii: \"}\") else { return nil }",
      "let number = try? number(), position < bytes.count else { return nil }"),
    m("E04", "json", SNAPSHOT_JSON, "the writer writes -0.0 as 0.0",
      "if value == 0, value.sign == .minus { out.append(UInt8(ascii: \"-\")) }   // -0.0", "_ = value   // -0.0"),
    m("E05", "json", SNAPSHOT_JSON, "a short string read before is reused when only its length and hash match",
      "if recent[slot].count == count, memcmp(base + recent[slot].start, base + start, count) == 0 { return recent[slot].string }",
      "if recent[slot].count == count { return recent[slot].string }"),
    # A log record's rows written by walking each row once (KeyOrder.place) and strings escaped
    # eight plain bytes at a step; killed by SnapshotJSONKeyOrderTests, SnapshotJSONStringWriterTests.
    m("G15", "json", SNAPSHOT_JSON, "a row's key is taken for the one at its guessed place without comparing them",
      "if !trustsGuesses, found[place] != nil || !Self.sameBytes(keys[place], key) {", "if false {"),
    m("G16", "json", SNAPSHOT_JSON, "keys of the same length match whatever their bytes",
      "return (compared ?? nil) ?? a.utf8.elementsEqual(b.utf8)", "return compared != nil || true"),
    m("G17", "json", SNAPSHOT_JSON, "a string's bytes after its first escape are not escaped",
      "index = Parser.plainRun(bytes, from: index + 1)", "index = bytes.count"),
    m("E06", "json", SNAPSHOT_JSON, "eight bytes holding a quote are stepped over as plain",
      "let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)) & highs",
      "let special = (((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)) & highs"),
    m("J18", "json", SNAPSHOT_JSON, "framing read straight takes an escaped `$` key (\\u0024) for a plain key",
      "if key.utf8.first == UInt8(ascii: \"$\") { position = start; return false }", "_ = start"),
    m("J19", "json", BASE, "a base row's key is taken for the key at its place in the last row (rows of other keys fill the wrong columns)",
      "if place < keys.count, keys[place].key == key {", "if place < keys.count {"),
    m("J20", "json", BASE_HISTORY, "a history record read straight loses its author",
      "case .string(let name)?: authorName = name", "case .string?: authorName = nil"),
    # Killed by JournalReplayOrderTests.aUniqueValueHandedOnInOneSaveReadsBack.
    m("J21", "json", JSON_STATE, "a journal entry's rows are replayed before its deletions",
      "            for identifier in entry.deletes ?? [] {\n                table.remove(identifier)\n                foreignRows[identifier.entityName]?.remove(identifier.primaryKey)\n            }\n            try write((entry.upserts ?? []).map { ($0.entity, $0.values) }, path: path)",
      "            try write((entry.upserts ?? []).map { ($0.entity, $0.values) }, path: path)\n            for identifier in entry.deletes ?? [] {\n                table.remove(identifier)\n                foreignRows[identifier.entityName]?.remove(identifier.primaryKey)\n            }"),
]

MUTATIONS += JSON_MUTATIONS

MIGRATION_MUTATIONS = [
    # Schema migration: planning, row and history migration, the JSON store's rewrite.
    m("G01", "json", ROW_MIGRATION, "a renamed attribute loses its values",
      "if let value = values.removeValue(forKey: from) { values[to] = value }", "values[from] = nil"),
    m("G02", "json", ROW_MIGRATION, "an added attribute's default is not given to stored rows",
      "if values[name] == nil || values[name] == .null { values[name] = value }", "_ = value"),
    m("G03", "json", JSON_STATE, "history is not migrated with the rows",
      "records: history.records.map(request.migrate)", "records: history.records"),
    m("G04", "json", MIGRATOR, "a schema the store was migrated from is not refused",
      "guard recorded.supersededFingerprints.contains(candidate.fingerprint) else { return }",
      "guard recorded.supersededFingerprints.contains(candidate.fingerprint), false else { return }"),
    m("G05", "json", LIGHTWEIGHT, "a changed value type is migrated lightweight",
      "guard old.valueType == attribute.valueType else {", "guard true else {"),
    m("G06", "json", JSON_STORE, "a store waiting for a migration reads and writes anyway",
      "guard state.needsMigration else { return }", "guard false else { return }"),
    m("G07", "json", MIGRATOR, "a lower version is not refused",
      "if let stored = recorded.version, let opening = schema.version, opening < stored {",
      "if let stored = recorded.version, let opening = schema.version, opening < stored, false {"),
    m("G13", "json", MIGRATOR, "a migration plan's stage that skips a version is not refused",
      "guard index + 1 < identifiers.count, identifiers[index + 1] == to else {",
      "guard index + 1 < identifiers.count, identifiers[index + 1] == to || true else {"),
    m("G14", "json", MIGRATOR, "a store version a migration plan does not list is not refused",
      "if start == nil, let stored = recorded.version {", "if start == nil, let stored = recorded.version, false {"),
    m("G08", "json", JSON_STATE, "a migration does not record the new schema",
      "fresh.recordedSchema = request.schema", "fresh.recordedSchema = recordedSchema"),
    m("G09", "json", MIGRATION_REQUEST, "a custom stage that throws is ignored",
      "rows = try MigrationStagingStore.run(name, schema: schema, rows: rows, body)",
      "rows = (try? MigrationStagingStore.run(name, schema: schema, rows: rows, body)) ?? rows"),
    m("G10", "json", JSON_STATE, "migrated rows that break a unique constraint are dropped, not refused",
      "for values in entityRows { try fresh.write(entity, values, path: files.base) }",
      "for values in entityRows { try? fresh.write(entity, values, path: files.base) }"),
    m("G11", "json", LIGHTWEIGHT, "an entity a plan's version leaves out is kept",
      "entityChanges.insert(.removeEntity(source.name), at: 0)", "result.entities.append(source)"),
    m("G12", "json", JSON_STORE, "a store waiting for a migration takes the writer's lock at open",
      "if configuration.allowsSave, !state.needsMigration {", "if configuration.allowsSave {"),
]

MUTATIONS += MIGRATION_MUTATIONS

LOG_MUTATIONS = [
    # The log store: frames, segments, retention, insert-only.
    m("L01", "log", FRAME, "a record's checksum is not checked",
      "if verify, !checksumHolds(bytes, offset: offset, end: end) { return .bad(reason: \"a checksum mismatch\") }", "_ = verify"),
    m("L02", "log", SEGMENTS, "a bad record is a torn tail even with valid records after it",
      "guard let next = Frame.nextValidRecord(bytes, after: offset) else { return (offset, true) }",
      "guard let next = Optional<Int>.none else { return (offset, true) }"),
    m("L03", "log", LOG_STATE, "a sealed segment's index is written before its data is flushed",
      "try FileIO.sync(files.segment(info.first))", "_ = info"),
    m("L04", "log", LOG_SAVE, "retention may drop the segment being written",
      "while state.segments.count > 1, let oldest = state.segments.first {", "while state.segments.count > 0, let oldest = state.segments.first {"),
    m("L05", "log", LOG_SAVE, "an update sent to the log is ignored instead of refused",
      "guard request.updated.isEmpty else { throw Self.insertOnly(\"update \\(request.updated[0].persistentIdentifier)\") }",
      "_ = request.updated"),
    m("L07", "log", LOG_STATE, "catching up does not read a seal another writer made",
      "for index in segments.indices where known.contains(segments[index].first) && !sealed.contains(segments[index].first) {",
      "for index in segments.indices where false {"),
    m("L06", "log", LOG_SAVE, "two inserts of one id in one save are both written",
      "throw Self.insertOnly(\"insert \\(identifier) twice in one save\")", "break"),
    m("L08", "log", SEGMENT_READER, "a range read does not check the checksum of the records it reads",
      "guard Frame.checksumHolds(bytes, offset: 0, end: record.length) else {", "guard true else {"),
    m("L09", "log", SEGMENT_READER, "a range read does not notice a segment cut shorter than it was",
      "guard size >= bytes else { throw LogState.shrunk(path, size: size, read: bytes) }", "_ = size"),
    m("L10", "log", SEGMENTS, "a whole last record whose length field changed is cut as a torn write",
      "if Frame.isWholeWithDamagedLength(bytes, at: offset) {", "if false {"),
    m("L12", "log", FRAME, "a record's rows are written one level shallower than the general path counts them (too deep a value is stored)",
      "try SnapshotJSON.write(row.values, keys: &keys, depth: 3,", "try SnapshotJSON.write(row.values, keys: &keys, depth: 2,"),
    m("L13", "log", FRAME, "a row whose values are not an object reads as a row",
      "guard case .string(let name)? = entity, case .object(let rowValues)? = values else { return nil }",
      "guard case .string(let name)? = entity else { return nil }; let rowValues: [String: SnapshotValue] = { if case .object(let v)? = values { return v }; return [:] }()"),
    m("L11", "log", SEGMENTS, "store.json's counters are not checked (a forged droppedThrough traps the next save)",
      "try meta.checkCounters(path: files.meta)", "_ = meta"),
    m("L14", "log", SEGMENTS, "a save's identifier hashes are not kept for the segment being written (a second insert of an id in it is taken)",
      "if let hash = hashes[index] { identifierHashes.insert(hash) }", "_ = hashes[index]"),
    m("L15", "log", SNAPSHOT_JSON, "a row with more keys than the last one is written with the last one's keys only",
      "if object.count == order.keys.count, !object.isEmpty, depth < maximumDepth, order.place(object) {",
      "if object.count >= order.keys.count, !object.isEmpty, depth < maximumDepth, order.place(object) {"),
]

MUTATIONS += LOG_MUTATIONS

# The replicator (StoreSync). The test that kills each is named after the mutation.
SYNC_MUTATIONS = [
    m("Y1", "sync", SYNC_PUSH, "a push sends the replicator's own saves (pulled changes) back: echo",  # SyncEngineTests.noEcho
      "let sending = transactions.filter { !Self.isReplicatorAuthored($0) }",
      "let sending = transactions.filter { !Self.isReplicatorAuthored($0) || true }"),
    m("Y2", "sync", SYNC_PULL, "a pull applies an origin transaction it already applied",  # SyncEngineTests.positionsAreSavedWithTheDataAndNothingIsAppliedTwice
      "try appliedThrough(range.origin, pending: applied) < range.last else {", "true else {"),
    m("Y3", "sync", SYNC_MERGE, "per attribute, the earlier clock wins",  # SyncEngineTests.concurrentEditsOfOneAttributeConvergeOnTheLaterClock
      "var takesIncoming = theirs.clock > ours.clock", "var takesIncoming = theirs.clock < ours.clock"),
    m("Y4", "sync", SYNC_RESOLVER, "a deletion against a concurrent update is decided by the clocks, not for the deletion",  # SyncEngineTests.aDeletionWinsOverAConcurrentUpdate
      "return deleteWins == conflict.heldIsDeletion ? .keepHeld : .takeIncoming", "return .keepLatest"),
    m("Y5", "sync", SYNC_SESSION, "a moved model's to-many inverse is not kept in step",  # SyncRelationshipTests.concurrentMovesKeepBothSidesInStep
      "for (name, leader) in parts.leaders.sorted(by: { $0.key < $1.key }) {",
      "for (name, leader) in parts.leaders.sorted(by: { $0.key < $1.key }) where false {"),
    m("Y6", "sync", SYNC_STAMP, "an expired local history is not compared row by row: offline edits stay undated",  # SyncResyncTests.anExpiredLocalHistoryIsComparedRowByRow
      "            models = try allSyncedModels(in: local)", "            models = []"),
    m("Y7", "sync", SYNC_PULL, "an expired pull position pulls nothing instead of resyncing",  # SyncResyncTests.anExpiredPullPositionResyncsEverything
      "                try pullResync()", "                _ = 0"),
    m("Y8", "sync", SYNC_SESSION, "on a unique-key collision the arriving model always survives",  # SyncUniqueKeyTests.changesOfTheLoserGoToTheSurvivor
      "let incomingSurvives = Self.sortKey(id) < Self.sortKey(other)", "let incomingSurvives = true"),
    m("Y9", "sync", SYNC_SESSION, "a change of a model merged away on a unique key is not redirected to the survivor",  # SyncUniqueKeyTests.changesOfTheLoserGoToTheSurvivor (cPullsFirst false)
      "if let survivor = try survivor(named: record?.mergedInto, of: id), incoming.values != nil {",
      "if let survivor = try survivor(named: record?.mergedInto, of: id), incoming.values != nil, false {"),
    m("Y10", "sync", SYNC_ROUND, "a model merged away does not take its survivor along",  # SyncUniqueKeyTests.changesOfTheLoserGoToTheSurvivor (cPullsFirst true)
      "if let key = model.clocks.mergedInto, let survivor", "if false, let key = model.clocks.mergedInto, let survivor"),
    m("Y11", "sync", SYNC_MERGE, "a re-insert after a deletion is taken for an update the deletion wins over",  # SyncRoundTests.aReinsertAfterADeletionComesBack
      "if let born = incoming.clocks.incarnation, born > deleted {\n            revives = true",
      "if let born = incoming.clocks.incarnation, born > deleted, false {\n            revives = true"),
    m("Y12", "sync", SYNC_SCHEMA, "an attribute of another type on the other side passes the schema check",  # SyncSchemaCheckTests.anAttributeOfAnotherTypeIsAMismatch
      "if other.valueType != attribute.valueType || other.isOptional != attribute.isOptional {",
      "if other.isOptional != attribute.isOptional {"),
    m("Y13", "sync", SYNC_ROUND, "a unique value that moved off a model on the source is merged as a collision of two replicas",  # SyncUniqueKeyMoveTests.aValueHandedToANewModelIsNoCollision
      "        session.source = SyncSource(store: source, fresh: fresh)\n", ""),
]

SYNC_LINEAGE = "Sources/StoreSync/SyncRound+Lineage.swift"
SYNC_EDITOR = "Sources/StoreTestSupport/SyncEditor.swift"
SYNC_MUTATIONS += [
    m("Y20", "sync", SYNC_STAMP, "the stamp position moves over a batch of replicator saves: its own save is the next batch, forever",  # SyncBookkeepingAndDatingTests.idleRoundsWithASmallBatchWriteNothing
      "replicatorTransactions >= SkippedStretch.worthASave", "replicatorTransactions >= max(1, configuration.batchSize)"),
    m("Y22", "sync", SYNC_LINEAGE, "a store restored from a backup keeps its replica ID: its new saves are taken for applied",  # SyncRestoredStoreTests.aDeviceRestoredFromABackupForksAndLosesNothing
      "guard pushed > (try local.currentTransaction()) else { return }", "guard false else { return }"),
    m("Y30", "sync", SYNC_CLOCK, "a clock reading far ahead of the wall clock is taken in",  # SyncClockSafetyTests.aPoisonReadingOnTheRemoteIsRefusedAndNothingIsApplied, theSkewLimitIsOneDay
      "guard let problem = problem(with: reading, wallClock: now) else { continue }",
      "guard let problem = problem(with: reading, wallClock: now), false else { continue }"),
    m("Y31", "sync", SYNC_TIMESTAMP, "a counter at its maximum is incremented: an arithmetic trap",  # SyncClockSafetyTests.aCounterAtItsMaximumMovesToTheNextMillisecond (traps)
      "if counter < .max { return", "if true { return"),
    m("Y32", "sync", SYNC_SCHEMA, "another delete rule on the other side passes the schema check",  # SyncSchemaRulesTests.anotherDeleteRuleIsAMismatch
      "if other.deleteRule != relationship.deleteRule {", "if false {"),
    m("Y33", "sync", SYNC_SCHEMA, "values preserved on deletion on one side only pass the schema check",  # SyncSchemaRulesTests.preservingAValueOnDeletionOnOneSideIsAMismatch
      "if ours.preservedOnDeletion != theirs.preservedOnDeletion {", "if false {"),
    m("Y34", "sync", SYNC_ROWS, "an empty replica ID is taken for a replica",  # SyncClockSafetyTests.anEmptyReplicaIDIsCorruptSyncState
      'row["replicaID"], !replica.isEmpty,', 'row["replicaID"], true,'),
    m("Y35", "sync", SYNC_MERGE, "a delete-versus-update conflict hides the held update's values",  # SyncReportDetailsTests.aDeleteVersusUpdateConflictShowsTheUpdatedValues
      "heldValue: held.values.map(SnapshotValue.object)", "heldValue: nil"),
    m("Y37", "sync", SYNC_CLOCK, "a saved clock far ahead of the wall clock is resumed from",  # SyncClockSafetyTests.aDamagedLocalClockIsCorruptSyncState (traps)
      "if let problem = Self.problem(with: mark, wallClock: wallClock()) {",
      "if let problem = Self.problem(with: mark, wallClock: wallClock()), false {"),
    m("Y40", "sync", SYNC_SESSION, "a model new here keeps the members its source listed whose held to-one names another model",  # MergeRuleScenarioTests.aMoveThatLosesIntoAProjectNewHereLeavesNoMemberBehind
      "if before == nil, let after { leaveOutMembersNamingOthers(parts, id: id, row: after) }",
      "if false, let after { leaveOutMembersNamingOthers(parts, id: id, row: after) }"),
    # The convergence run's own premise: its editor records what each save does.
    m("Y50", "sync", SYNC_EDITOR, "the convergence editor moves a task by its project's tasks and reads both ends again in the same save",  # SyncEditorRecordTests.aSaveDoesWhatTheEditorRecords
      "touched.formUnion([task.id, task.project?.id, project.id].compactMap { $0 })",
      "_ = project"),
    m("Y51", "sync", SYNC_STAMP, "a local change is dated by the round, not by when the app saved it",  # SyncBookkeepingAndDatingTests.anOfflineEditIsDatedByItsSaveNotByTheRound
      "fresh: fresh, saved: saved[id] ?? [:]),", "fresh: fresh),"),
    m("Y52", "sync", SYNC_ROUND, "a pull passes over a remote save that changed a model's clock record alone (the same value, saved later elsewhere)",  # SyncBookkeepingAndDatingTests.aValueWrittenAgainLaterElsewhereWinsOnEveryReplica
      "let id = SyncStateRows.model(ofClockRecord: change.changedPersistentIdentifier) ?? change.changedPersistentIdentifier",
      "let id = change.changedPersistentIdentifier"),
    m("Y53", "sync", "Sources/StoreSync/ModelDating.swift", "a value changed and changed back since the last round keeps its old clock",  # SyncBookkeepingAndDatingTests.aValueChangedAndChangedBackIsDatedByItsLastSave
      "if let held, held.digest == digest, !(saved[.named(name)].map { $0 > held.clock } ?? false) { continue }",
      "if let held, held.digest == digest { continue }"),
    m("Y54", "sync", "Sources/StoreSync/ModelDating.swift", "a model deleted and inserted again with the same values is no new life",  # SyncBookkeepingAndDatingTests.aReinsertWithTheSameValuesIsANewLife
      "return life > incarnation", "return false"),
    m("Y55", "sync", SYNC_ROUND, "an app author that begins with StoreSync (no slash) is taken for the replicator's",  # SyncBookkeepingAndDatingTests.onlyAuthorsUnderStoreSyncSlashAreTheReplicators
      "transaction.author?.hasPrefix(authorPrefix + \"/\") == true", "transaction.author?.hasPrefix(authorPrefix) == true"),
    m("Y60", "table", TABLE, "a save's updates are checked against unique constraints one row at a time: a swap is refused",  # conformance upserts/storedModelsSwapUniqueValuesInOneSave; SyncUniqueKeyMoveTests.aSwapAcrossTwoSavesOfOneDeviceIsNoCollision
      "try rows.put(updatedRows[entityName] ?? [])", "for row in updatedRows[entityName] ?? [] { try rows.put(row) }"),
    m("Y61", "json", JSON_STATE, "a journal entry's rows are replayed one at a time: a swap another process saved reads as a clash",  # conformance upserts/storedModelsSwapUniqueValuesInOneSave (JSONStore)
      "            try table.write(together: snapshots)\n", "            for snapshot in snapshots { try table.write(snapshot) }\n"),
    m("Y62", "sync", SYNC_SESSION, "references held to the loser of a unique-key merge are not moved to the survivor",  # SyncMergedReferenceTests.referencesToTheLoserMoveToTheSurvivor
      "        report([(conflict, .keepLatest, incomingSurvives)])\n        try redirectReferences(to: loser, survivor: survivor)\n",
      "        report([(conflict, .keepLatest, incomingSurvives)])\n"),
    m("Y63", "sync", SYNC_SESSION, "a reference to a model merged away that arrives later is not moved to the survivor",  # SyncMergedReferenceTests.aLateReferenceToTheLoserGoesToTheSurvivor
      "let incoming = try redirectingReferences(of: incoming, parts: parts)", "let incoming = incoming"),
    m("Y64", "sync", SYNC_SESSION, "a replica that learns of a merge made elsewhere keeps its references to the loser",  # SyncMergedReferenceTests.referencesToTheLoserMoveToTheSurvivor
      "            try apply(redirected(DatedModel(values: heldRow, clocks: held.clocks), to: survivor), id: survivor)\n            try redirectReferences(to: id, survivor: survivor)\n",
      "            try apply(redirected(DatedModel(values: heldRow, clocks: held.clocks), to: survivor), id: survivor)\n"),
]

# Batched replication (one destination save per batch, authors naming origin ranges, rows read ahead).
SYNC_STORE = "Sources/StoreSync/SyncStore.swift"
SYNC_MUTATIONS += [
    m("Y70", "sync", SYNC_ROUND, "a range author is read as its first transaction",  # SyncBatchedSaveTests.authorsNameOneTransactionOrARange
      "let last = numbers.count == 2 ? Int64(numbers[1]) : first,", "let last = Optional(first),"),
    m("Y71", "sync", SYNC_ROUND, "a reversed range author is taken",  # SyncBatchedSaveTests.authorsNameOneTransactionOrARange
      "first <= last else { return nil }", "true else { return nil }"),
    m("Y72", "sync", SYNC_PUSH, "a pushed batch saves its first transaction as applied: the rest is pushed again",  # SyncBatchedSaveTests.transactionsTravelInBatchesExactlyOnce
      "SyncStateRows.writeAppliedOrigin(origin, last, into: &session.save)",
      "SyncStateRows.writeAppliedOrigin(origin, first, into: &session.save)"),
    m("Y73", "sync", SYNC_PULL, "a pull saves each remote transaction alone",  # SyncBatchedSaveTests.transactionsTravelInBatchesExactlyOnce
      "if let open = applied, open.origin == range.origin,", "if let open = applied, open.origin == range.origin, false,"),
    m("Y74", "sync", SYNC_STORE, "a model read ahead is taken for absent",  # SyncBatchedSaveTests.transactionsTravelInBatchesExactlyOnce
      "rows[id] = fetched[id]", "rows[id] = nil"),
]

# A log store as a push-only source (issue 32 (e)), and the exclusive access's conformance cases.
SYNC_PUSH_ONLY = "Sources/StoreSync/SyncRound+PushOnly.swift"
SYNC_REPLICATOR = "Sources/StoreSync/Replicator.swift"
MEMORY_ACCESS = "Sources/MemoryStore/MemoryStore+ExclusiveAccess.swift"
SYNC_MUTATIONS += [
    m("Y80", "sync", SYNC_REPLICATOR, "a pull into a log store is not refused: it reads the remote and fails on the first write",  # LogSourceSyncTests.aPullIntoALogIsRefusedAndNothingMoves
      "guard !isPushOnly else {", "guard !isPushOnly || true else {"),
    m("Y81", "sync", SYNC_PUSH_ONLY, "a log record is dated by the round's wall clock, not by its transaction",  # LogSourceSyncTests.eachRecordIsDatedByItsTransaction
      "HybridLogicalTimestamp(at: transaction.timestamp, replica: replica)",
      "HybridLogicalTimestamp(milliseconds: configuration.wallClock(), counter: 0, replica: replica)"),
    m("Y82", "sync", SYNC_PUSH_ONLY, "a log's push position is not saved with the records: every round pushes them again",  # LogSourceSyncTests.aLogPushesEveryRecordOnceAndAnotherReplicaPullsThem
      "try save(session, applying: replica, first: number, last: number)",
      "try save(session, applying: replica, first: position, last: position)"),
    m("Y83", "sync", SYNC_PUSH_ONLY, "a log restored from a backup pushes on: its next records would be taken for pushed",  # LogSourceSyncTests.aLogRestoredFromABackupIsRefused
      "guard position <= newest else {", "guard true else {"),
    m("Y84", "memory", MEMORY_ACCESS, "a memory store's exclusive access takes no lock: two callers read and save at once",  # conformance: exclusiveAccess/oneStoreGivesItToOneCallerAtATime
      "take: { try lock.withLock($0) }", "take: { try $0() }"),
]

MUTATIONS += SYNC_MUTATIONS

# Issue 30, a context's per-model costs (fetch fast paths).
MODEL_MEMBERS = "Sources/DataStoresMacroKit/ModelMembers.swift"
MUTATIONS += [
    m("D01", "context", CONTEXT_FETCH, "a context holding one model takes itself for one without pending changes",  # FetchFastPathTests.aFreshContextSeesNoPendingChangesAndAnInsertCounts
      "guard registrations.count > 0 else { return false }", "guard registrations.count > 1 else { return false }"),
    m("D02", "macro", MODEL_MEMBERS, "the one-pass decoder stores every stored value in the first property's slot",  # FetchFastPathTests.decodingInOnePassReadsWhatALookupByNameReads
      "let cases = properties.map { \"case \\\"\\($0.name)\\\": \\(local($0.name)) = _$value\" }",
      "let cases = properties.map { \"case \\\"\\($0.name)\\\": \\(local(properties[0].name)) = _$value\" }"),
]

# A quick subset: one or two per area, for a check that the tool and the suite still work.
QUICK = ["T01", "T03", "Q01", "H01", "C01", "M01"]

# Related rows a store sends along with a fetch (issue 30, item 4).
RELATED_ROWS = "Sources/StoreBuildingBlocks/SnapshotTable+Related.swift"
PRELOADED = "Sources/StoreProtocol/Container/PreloadedRows.swift"
MUTATIONS += [
    m("A01", "context", RELATIONSHIPS, "a related row under another model's identifier is taken as that model's",  # RelatedRowLoadingTests.relatedRowsUnderAnotherIdentifierAreRefusedBeforeAnyModelIsRegistered
      "if let (key, row) = related.first(where: { $0.key != $0.value.persistentIdentifier }) {",
      "if let (key, row) = related.first(where: { _ in false }) {"),
    m("A02", "context", PRELOADED, "a related row of a model another store of the container keeps is taken",  # RelatedRowLoadingTests.aRelatedRowOfAModelAnotherStoreKeepsIsNotTaken
      "return (try? container.storeIndex(forEntityNamed: name)) == storeIndex", "return true"),
    m("A03", "table", RELATED_ROWS, "a store sends the related rows of the first level only",  # RelatedRowLoadingTests.aFetchWithEveryRelatedRowSentAsksTheStoreOnlyForTheRowsNotSent
      "            level = next\n", "            level = []\n"),
    m("A04", "context", RELATIONSHIPS, "the related rows a store sends are not used: every related model is fetched by key",  # RelatedRowLoadingTests.aFetchWithEveryRelatedRowSentAsksTheStoreOnlyForTheRowsNotSent
      "                if preloaded.holdsRows(ofEntityNamed: entityName, in: container) {",
      "                if false, preloaded.holdsRows(ofEntityNamed: entityName, in: container) {"),
]

# A fetch into a context that holds no model registers each row in one hashed lookup (issue 30).
MUTATIONS += [
    m("K01", "context", CONTEXT_FETCH, "a fresh context's fetch returns a second instance for a row sent twice",  # FreshContextFetchTests.aFreshContextsFetchGivesWhatTheReferencePathGives
      "        guard made else { return try materialize(snapshot, entity: entity, as: registrationType) }",
      "        guard made else { return model }"),
    m("K02", "context", REGISTRATIONS, "a model a fresh context fetched is not tracked: its changes are not seen",  # FreshContextFetchTests.aFreshContextsFetchGivesWhatTheReferencePathGives
      "        if made { registration.backing.track(by: touches, as: identifier) }",
      "        if made, false { registration.backing.track(by: touches, as: identifier) }"),
    m("K03", "context", CONTEXT_FETCH, "a fresh context's fetch registers a row under its stored id, not the row's identifier",  # FreshContextFetchTests.aFreshContextsFetchGivesWhatTheReferencePathGives
      "        guard identifier == snapshot.persistentIdentifier else {",
      "        guard identifier == identifier else {"),
]

# A save's passes share one change scan: the registration table answers a look from the last one
# while nothing that could change the answer happened since (issue 30).
MUTATIONS += [
    m("O01", "context", REGISTRATIONS, "a delete after a look is not seen by the next look (unsettling keeps the last look)",  # ChangeScanTests.aLookAfterALookSeesWhatChangedBetween
      "    mutating func unsettle(_ identifier: PersistentIdentifier) {\n        lastLook = nil\n",
      "    mutating func unsettle(_ identifier: PersistentIdentifier) {\n"),
    m("O02", "context", REGISTRATIONS, "a look answers from the last one though a model it found has settled since",  # ChangeScanTests.aLookAfterALookSeesWhatChangedBetween
      "let last = lastLook, last.found.allSatisfy({ !$0.isSettled }) { return last }", "let last = lastLook { return last }"),
    m("O03", "context", REGISTRATIONS, "a look answers from the last one though the touch log holds changes made since",  # ChangeScanTests.aLookAfterALookSeesWhatChangedBetween
      "if reusesLastLook, touched.isEmpty, let last", "if reusesLastLook, let last"),
    m("O04", "context", REGISTRATIONS, "a look answers from the last one though a model was forgotten since (a new model deleted)",  # ChangeScanTests.aLookAfterALookSeesWhatChangedBetween, aSaveStoresWhatAScanEveryTimeStores
      "        set {\n            lastLook = nil\n", "        set {\n"),
    m("O05", "context", REGISTRATIONS, "a registration the table forgets keeps its unsettled entry: a new model deleted is saved",  # ChangeScanTests.aLookAfterALookSeesWhatChangedBetween
      "                    release(old)\n                    unsettled.removeValue(forKey: identifier)\n", "                    release(old)\n"),
    m("O06", "context", REGISTRATIONS, "an unsettled entry keeps the registration another replaced",
      "            if let entry = unsettled.index(forKey: identifier) { unsettled.values[entry] = registration }\n", "\n",
      equivalent="defensive: the subscript's set points the entry at its registration itself, and registerSettled replaces "
                 "only a registration made settled in the same fetch (a fetch registers a row only when none is held), "
                 "which has no unsettled entry"),
]

# A fetch whose whole filter is one equality on `id` or an indexed attribute is answered by a
# lookup, without planning a scan (issue 30).
EQUALITY_LOOKUP = "Sources/StoreBuildingBlocks/EqualityLookup.swift"
MUTATIONS += [
    m("N01", "query", EQUALITY_LOOKUP, "a fetch by indexed value returns the rows in the index's order, not insertion order",  # EqualityLookupTests.theLookupAnswersAsTheEvaluatorDoes
      "            if selection.count > 1 { selection.sort() }\n", ""),
    m("N02", "query", EQUALITY_LOOKUP, "a fetch by indexed value returns the rows whose value does not read as its type",  # EqualityLookupTests.rowsTheStoredValuesCannotDecideLeaveTheRequestToTheEvaluator
      "guard let stored = columns[column].value(at: slot), let matches = QueryComparison.equal.evaluate(stored, constant) else { return nil }",
      "let matches = true"),
    m("N03", "query", EQUALITY_LOOKUP, "a fetch by indexed value with an offset or a limit returns every row",  # EqualityLookupTests.pagesSortsAndOtherOperandsAreLeftToTheGeneralPath
      "query.fetchOffset == nil, query.fetchLimit == nil,", ""),
]

# Values read back exactly, or are refused before any store sees them (an independent tester,
# 2026-11-29): a Float NaN keeps its bits; a value nested past the limit is refused, not recursed.
FLOAT_BITS = "Sources/StoreProtocol/Snapshot/FloatBits.swift"
MUTATIONS += [
    m("X01", "coder", FLOAT_BITS, "a Float NaN widens through the hardware: a signaling NaN is quieted",  # SnapshotEncoderLimitsTests.everyFloatWidensAndNarrowsBitForBit, ValueFidelityTests.everyFloatNaNReadsBackBitForBit
      "        guard isNaN else { return Double(self) }\n", "        if true { return Double(self) }\n"),
    m("X02", "coder", FLOAT_BITS, "a Double NaN narrows to Float through the hardware: a signaling Float NaN reads back quieted",  # SnapshotEncoderLimitsTests.everyFloatWidensAndNarrowsBitForBit, ValueFidelityTests.everyFloatNaNReadsBackBitForBit
      "        self.init(bitPattern: UInt32(truncatingIfNeeded: bits >> 63) << 31 | 0xFF << 23 | payload)",
      "        self = Float(double)"),
    m("X03", "context", CONTEXT_REGISTRATION, "a value nested too deep is refused as unencodableModel, not the documented unsupportedValue",  # ValueFidelityTests.aValueNestedTooDeepIsRefusedBeforeAnythingIsWritten, theDepthLimitIsFiveHundredAndTwelveLevels
      "catch let error as DataStoreError where error.code == .unsupportedValue {",
      "catch let error as DataStoreError where error.code == .unsupportedValue && false {"),
    m("X04", "coder", ENCODER, "the encoder recurses into a value however deep it nests: a deep Codable value overflows the stack",  # ValueFidelityTests.aValueNestedTooDeepIsRefusedBeforeAnythingIsWritten (crashes)
      "        guard depth < SnapshotValue.maximumNestingDepth else { throw TooDeep(codingPath: codingPath()) }\n", ""),
    m("X05", "coder", ENCODER, "a value nested too deep through a type's own nested containers is not measured: MemoryStore keeps it",  # SnapshotEncoderLimitsTests.aValueNestedDeeperThanTheLimitIsRefused
      "            guard depth < SnapshotValue.maximumNestingDepth else { throw TooDeep(path: []) }\n", ""),
]

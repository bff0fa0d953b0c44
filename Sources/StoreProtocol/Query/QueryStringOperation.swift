/// A string test of a ``QueryExpression``, with the meaning `#Predicate` gives it.
///
/// Both compare `Character`s, so they follow canonical equivalence at character boundaries:
/// `"café"` (precomposed) contains `"é"` written decomposed, but does not contain `"e"`.
/// A backend that cannot match that exactly (most SQL `LIKE` and `instr` compare code units)
/// should evaluate the test on the row's values with ``evaluate(_:_:)`` instead.
public enum QueryStringOperation: String, Sendable, Hashable, CaseIterable {
    /// `string.contains(other)`: `other` occurs in `string` (an empty `other` always does).
    case contains
    /// `string.starts(with: prefix)`.
    case startsWith

    /// Whether the test holds, computed as `#Predicate`'s expressions compute it.
    /// - Complexity: O(*n* × *m*) for `contains`, O(*m*) for `startsWith`, in characters.
    public func evaluate(_ string: String, _ other: String) -> Bool {
        switch self {
        case .contains: return collectionContains(string, other)
        case .startsWith: return sequenceStarts(string, with: other)
        }
    }
}

// The generic functions that `PredicateExpressions.CollectionContainsCollection` and
// `SequenceStartsWith` call, called from the same generic context so that the same overloads
// are chosen (String's own `contains(_:)` and `hasPrefix(_:)` are other functions).

private func collectionContains<Base: Collection, Other: Collection>(_ base: Base, _ other: Other) -> Bool
where Base.Element == Other.Element, Base.Element: Equatable {
    base.contains(other)
}

private func sequenceStarts<Base: Sequence, Prefix: Sequence>(_ base: Base, with prefix: Prefix) -> Bool
where Base.Element == Prefix.Element, Base.Element: Equatable {
    base.starts(with: prefix)
}

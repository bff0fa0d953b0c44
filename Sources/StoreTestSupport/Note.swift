import DataStores

/// The smallest model a test needs: an identifier and a text. For tests about containers,
/// contexts and history, where what the model holds does not matter.
@Model
public final class Note {
    public var id = UUID()
    public var text: String

    public init(_ text: String = "") { self.text = text }
}

// The module a port imports in place of `import SwiftData`: the framework (containers,
// contexts, descriptors, history) and the model macros. Foundation and Observation come along,
// as they do with SwiftData, so a model file needs no other import.
@_exported import Foundation
@_exported import Observation
@_exported import StoreProtocol

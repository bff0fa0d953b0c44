import Foundation

// trips: the talk's SampleTrips feature on the command line. See TripsApp.usage.
let standardError = FileHandle.standardError
do {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    if arguments.flag("help") || arguments.command == "help" {
        print(TripsApp.usage)
        exit(0)
    }
    try await TripsApp(arguments: arguments).run()
} catch let error as UsageError {
    standardError.write(Data("trips: \(error)\n\(TripsApp.usage)\n".utf8))
    exit(2)
} catch {
    standardError.write(Data("trips: \(error)\n".utf8))
    exit(1)
}

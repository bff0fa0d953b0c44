import Foundation
import StoreProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes a FIFO (named pipe) at `url`, where a store expects one of its files.
public func makeFIFO(at url: URL) throws {
    guard mkfifo(url.path, 0o644) == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}

/// Runs `body` on another thread and waits at most `seconds` for it: what it threw (`nil` when
/// it returned), or `.hung` when it had not finished by then. A store's open that blocks on a
/// FIFO at one of its paths would block the test for good; after a timeout the FIFO is opened
/// for writing (with `O_NONBLOCK`, so that this cannot block either), which releases a reader
/// that waits for a writer, so the thread ends.
public func outcomeWithin(_ seconds: Double, releasing fifo: URL, _ body: @escaping @Sendable () throws -> Void) -> OpenOutcome {
    let done = DispatchSemaphore(value: 0)
    let outcome = Locked<OpenOutcome>(.hung)
    Thread {
        do {
            try body()
            outcome.withLock { $0 = .returned }
        } catch {
            outcome.withLock { $0 = .threw(error) }
        }
        done.signal()
    }.start()
    guard done.wait(timeout: .now() + seconds) == .timedOut else { return outcome.withLock { $0 } }
    repeat {   // the body may open the FIFO again
        let fd = open(fifo.path, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    } while done.wait(timeout: .now() + 1) == .timedOut
    return .hung
}

/// What ``outcomeWithin(_:releasing:_:)`` saw.
public enum OpenOutcome: Sendable {
    case returned
    case threw(any Error)
    /// Still running at the timeout.
    case hung
}

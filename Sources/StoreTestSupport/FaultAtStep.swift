import Foundation
@_spi(FaultInjection) import StoreFiles

// Fault injection exists in debug builds only (see `FileFaults`), as do the tests that use this.
#if DEBUG
/// Runs `body` with the `step`-th file operation under `directory` failing: with `ENOSPC` on odd
/// steps and `EIO` on even ones, and on every third step after a short write of `shortWrite`
/// bytes. Returns what `body` returned and how many file operations it made under `directory`;
/// fewer than `step` means the fault never came, so a loop over the steps is done.
public func withFault<T>(atStep step: Int, under directory: URL, shortWrite: Int,
                         _ body: () throws -> T) rethrows -> (result: T, operations: Int) {
    let counter = Counter()
    let hook = FileFaults.install { _, path in
        guard path.hasPrefix(directory.path), counter.increment() == step else { return nil }
        return FileFaults.Fault(code: [ENOSPC, EIO][step % 2], bytesWritten: step % 3 == 0 ? shortWrite : 0)
    }
    defer { FileFaults.remove(hook) }
    return (try body(), counter.count)
}
#endif

import Foundation
import StoreProtocol
@_spi(FaultInjection) import StoreFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Fault injection exists in debug builds only (see `FileFaults`), as do the tests that use this.
#if DEBUG
private typealias FileStatus = stat

/// Simulates a power loss under a store, as SQLite's crash-test file system does: it watches
/// every file operation the store makes in one directory (through ``FileFaults/Observer``), makes
/// the Nth one and every later one fail (the machine stops), then rewinds the real files to a
/// state the disk could hold after the power came back.
///
/// ## The model
///
/// - A file's data operations (writes, truncates, the `O_TRUNC` of an existing file) become
///   durable when that file is `fsync`ed; a directory's entries (creates, renames, unlinks)
///   become durable when that directory is `fsync`ed. Durable operations are never lost.
/// - At the power loss, each operation not yet durable is lost, or not, at random (seeded), in
///   any combination: the disk may have written any of them back on its own, in any order.
///   Lost operations are undone newest first, from what was captured just before each ran: the
///   bytes a write overwrote and the file's old length, the tail a truncate cut off, the file a
///   rename replaced, the contents of an unlinked file.
/// - Optionally, the last block (512 bytes, aligned) that a file's last surviving unsynced write
///   touched is garbled: zeros over a random part of it, as a sector the write did not reach.
///   Never random bytes: a disk writes a sector whole or not at all (or fails its read), and a
///   store must tell a line written whole and damaged later, which it refuses, from a torn one,
///   which it cuts; bytes that changed under a complete line are the former.
/// - Two models (``Model``): `journaling` (ext4-like; the store's directory and a directory it
///   creates survive) and `strictPOSIX` (each unflushed write torn at 512-byte sectors, and a
///   directory the store creates lost unless its parent was flushed). `POWERLOSS_MODEL`
///   chooses the default.
/// - Operations are identified with the file (inode) they changed, not its name, so an undo
///   follows a file that a kept rename moved. Files the store unlinks or replaces are held open
///   until the rewind, so that their inode numbers are not reused meanwhile.
///
/// ## Simplifications
///
/// - The store's directory and the directories it creates in it; files elsewhere are not
///   watched. The lock file's contents are not watched (they do not matter).
/// - A lost write that a kept later write extended past becomes a hole of zeros; a lost
///   truncate restores only the bytes past the file's current end (a kept later write over the
///   cut region keeps its bytes). The stores never overwrite bytes they wrote before a crash, so
///   these cases do not arise with them.
/// - A lost rename or create whose file a kept later operation moved or replaced is left as the
///   kept operation made it (the later operation wins, as a journaling file system orders them).
/// - Metadata is not ordered: any subset of unsynced creates, renames and unlinks may be lost,
///   which is harsher than ext4 or APFS (which commit metadata in order).
///   `POWERLOSS_METADATA=ordered` loses them in order only: all after a random point.
/// - A crash is a clean stop before operation N: no operation is torn in the middle except by
///   the garbling above, which stands for it.
///
/// ## Sabotage
///
/// `POWERLOSS_SABOTAGE=skip-file-sync` (or `skip-directory-sync`) makes the simulator ignore
/// file (or directory) `fsync`s, as a store that acknowledged before flushing would: the
/// power-loss tests must then fail. It is the negative control that shows they can.
/// `store-skips-parent-directory-sync` makes the store itself skip the flush of a new
/// directory's parent: the strict model must catch it (the journaling one cannot).
public final class PowerLossSimulator: @unchecked Sendable {
    /// Flushes to ignore, to show that the tests catch a store that skips them.
    public enum Sabotage: String, Sendable {
        case none
        case skipFileSync = "skip-file-sync"
        case skipDirectorySync = "skip-directory-sync"
        /// The store itself skips the flush of a new directory's parent (through
        /// `FileFaults/skipParentSyncs(under:)`), as LogStore did before issue 28: only the strict
        /// POSIX model (``Model/strictPOSIX``) loses that entry, and must catch it.
        case storeSkipsParentDirectorySync = "store-skips-parent-directory-sync"

        /// From `POWERLOSS_SABOTAGE`; ``none`` when unset.
        public static var fromEnvironment: Sabotage {
            ProcessInfo.processInfo.environment["POWERLOSS_SABOTAGE"].flatMap(Sabotage.init(rawValue:)) ?? .none
        }
    }

    /// What a power loss may do to what was not flushed.
    public enum Model: String, Sendable, CaseIterable {
        /// Like ext4 or APFS: an unflushed write is lost whole or kept whole (but for the
        /// garbled last block); a directory the store creates is there after the power loss
        /// (a journaling file system commits it with the first flush after it).
        case journaling
        /// What POSIX promises and no more: every directory entry, the store's own directory's in
        /// its parent included, is durable only once that directory is flushed; every unflushed
        /// write is torn at 512-byte sectors, each written or not (never-written ones read as
        /// zeros where the write extended the file), and a file's new length may be kept when
        /// its last sectors are not.
        case strictPOSIX = "strict-posix"

        /// From `POWERLOSS_MODEL`; ``journaling`` when unset.
        public static var fromEnvironment: Model {
            ProcessInfo.processInfo.environment["POWERLOSS_MODEL"].flatMap(Model.init(rawValue:)) ?? .journaling
        }
    }

    /// What the rewind did, for a failure message.
    public struct Report: Sendable, CustomStringConvertible {
        /// Operations not yet durable at the power loss.
        public var unsynced: [String] = []
        /// The ones the rewind undid.
        public var lost: [String] = []
        /// Blocks garbled.
        public var garbled: [String] = []
        /// Writes torn at sectors (strict POSIX): some sectors lost, some kept.
        public var torn: [String] = []
        /// Of them, writes at the start of a file whose first sector was lost and a later one kept.
        public var tornAtStart = 0
        /// Directories whose entry in their parent was lost (strict POSIX), with all they held:
        /// made after the simulator started, and not there when their parent was last flushed.
        public var lostDirectories: [String] = []

        public var description: String {
            "\(unsynced.count) unsynced operations, \(lost.count) lost \(lost), garbled \(garbled)"
                + (torn.isEmpty ? "" : ", torn \(torn)")
        }
    }

    private enum Change {
        case write(offset: Int64, old: Data, oldLength: Int64, count: Int)
        /// `tail` is what lay past `newLength` before.
        case truncate(oldLength: Int64, tail: Data, newLength: Int64)
        case create
        /// `path` is the target; `replaced` the inode and contents of the file it replaced.
        case rename(from: String, replaced: (inode: UInt64, contents: Data)?)
        case remove(contents: Data)

        var isData: Bool {
            switch self {
            case .write, .truncate: return true
            case .create, .rename, .remove: return false
            }
        }
    }

    private struct Operation {
        var path: String
        var inode: UInt64
        var change: Change
        var what: String
    }

    /// The directory watched (the store's), without a trailing slash.
    public let directory: String
    /// The operation (1-based, counting every operation in the directory, flushes included) that
    /// fails first.
    public let crashAt: Int
    /// Also fails the first operation whose description this accepts (and every later one).
    public let crashBefore: (@Sendable (String) -> Bool)?
    public let sabotage: Sabotage
    public let model: Model

    private let lock = NSLock()
    private var key: UUID?
    private var sabotageKey: UUID?
    /// Strict model: the directories whose entry in their parent is on disk (there at the
    /// start, or listed when their parent was flushed).
    private var durableDirectories: Set<String> = []
    private var count = 0
    private var crashed: String?
    private var pending: Operation?
    private var unsynced: [Operation] = []
    private var seen: [String] = []
    /// Descriptors of unlinked or replaced files, so that their inode numbers stay taken.
    private var pinned: [Int32] = []

    /// A simulator for the files in `directory` whose operation number `crashAt` fails, and
    /// every one after it. Call ``start()`` to begin watching.
    public init(directory: URL, crashAt: Int, sabotage: Sabotage = .fromEnvironment, model: Model = .fromEnvironment) {
        var path = directory.standardizedFileURL.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.directory = path
        self.crashAt = crashAt
        self.sabotage = sabotage
        self.model = model
        crashBefore = nil
    }

    /// A simulator whose power goes just before the first operation `crashBefore` accepts (given
    /// its description, such as `create /…/segment-00000000000000000002.log`): for a test of one
    /// chosen instant.
    public init(directory: URL, sabotage: Sabotage = .none, model: Model = .journaling,
                crashBefore: @escaping @Sendable (String) -> Bool) {
        var path = directory.standardizedFileURL.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.directory = path
        crashAt = .max
        self.sabotage = sabotage
        self.model = model
        self.crashBefore = crashBefore
    }

    deinit {
        if let key { FileFaults.remove(observer: key) }
        if let sabotageKey { FileFaults.remove(skippedParentSyncs: sabotageKey) }
        for fd in pinned { close(fd) }
    }

    /// Begins watching.
    public func start() {
        lock.lock()
        defer { lock.unlock() }
        if key == nil {
            key = FileFaults.install(observer: Watcher(simulator: self))
            if model == .strictPOSIX { durableDirectories = Set(Self.directories(under: directory)) }
        }
        if sabotage == .storeSkipsParentDirectorySync, sabotageKey == nil { sabotageKey = FileFaults.skipParentSyncs(under: directory) }
    }

    /// Whether the power went (an operation was refused).
    public var hasCrashed: Bool { withLock { crashed != nil } }
    /// The first operation refused, described.
    public var crashEvent: String? { withLock { crashed } }
    /// How many operations ran (not counting refused ones).
    public var operationCount: Int { withLock { seen.count } }
    /// The operations that ran, described, from number `start` (0-based) on.
    public func events(since start: Int) -> [String] { withLock { Array(seen[min(start, seen.count)...]) } }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func inScope(_ path: String) -> Bool {
        path == directory || path.hasPrefix(directory + "/")
    }

    // MARK: Observing

    /// The observer installed: a separate object, so that the simulator's public interface does
    /// not show the SPI type. It holds the simulator weakly: a dropped simulator stops watching.
    private final class Watcher: FileFaults.Observer {
        weak let simulator: PowerLossSimulator?
        init(simulator: PowerLossSimulator) { self.simulator = simulator }
        func willPerform(_ event: FileFaults.Event) -> FileFaults.Fault? { simulator?.willPerform(event) }
        func didPerform(_ event: FileFaults.Event) { simulator?.didPerform(event) }
    }

    fileprivate func willPerform(_ event: FileFaults.Event) -> FileFaults.Fault? {
        var paths = [event.path]
        if case .rename(let from, _) = event { paths.append(from) }
        guard paths.contains(where: inScope) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        count += 1
        if crashed != nil || count >= crashAt || crashBefore?(event.description) == true {
            if crashed == nil { crashed = event.description }
            return FileFaults.Fault(code: EIO)
        }
        seen.append(event.description)
        pending = capture(event)
        return nil
    }

    fileprivate func didPerform(_ event: FileFaults.Event) {
        var paths = [event.path]
        if case .rename(let from, _) = event { paths.append(from) }
        guard paths.contains(where: inScope) else { return }
        lock.lock()
        defer { lock.unlock() }
        switch event {
        case .syncFile(let path):
            guard sabotage != .skipFileSync, let inode = Self.inode(path) else { break }
            unsynced.removeAll { $0.change.isData && $0.inode == inode }
        case .syncDirectory(let path):
            guard sabotage != .skipDirectorySync else { break }
            unsynced.removeAll { !$0.change.isData && ($0.path as NSString).deletingLastPathComponent == path }
            if model == .strictPOSIX {
                // The directories in it now have their entries on disk, however they were made.
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                for name in names where Self.isDirectory(path + "/" + name) { durableDirectories.insert(path + "/" + name) }
            }
        default:
            guard var operation = pending else { break }
            if case .create = operation.change {
                guard let inode = Self.inode(operation.path) else { break }
                operation.inode = inode
            }
            unsynced.append(operation)
        }
        pending = nil
    }

    /// What undoing `event` needs, read before it runs.
    private func capture(_ event: FileFaults.Event) -> Operation? {
        let what = event.description
        switch event {
        case .create(let path, let truncating):
            guard let info = Self.stat(path) else { return Operation(path: path, inode: 0, change: .create, what: what) }
            guard truncating, info.size > 0 else { return nil }
            return Operation(path: path, inode: info.inode,
                             change: .truncate(oldLength: info.size, tail: Self.read(path, 0, info.size), newLength: 0), what: what)
        case .write(let path, let offset, let bytes):
            guard let info = Self.stat(path) else { return nil }
            let old = Self.read(path, offset, min(offset + Int64(bytes.count), info.size))
            return Operation(path: path, inode: info.inode,
                             change: .write(offset: offset, old: old, oldLength: info.size, count: bytes.count), what: what)
        case .truncate(let path, let length):
            guard let info = Self.stat(path) else { return nil }
            return Operation(path: path, inode: info.inode,
                             change: .truncate(oldLength: info.size, tail: Self.read(path, length, info.size), newLength: length), what: what)
        case .rename(let from, let to):
            guard let moved = Self.stat(from) else { return nil }
            var replaced: (UInt64, Data)?
            if let target = Self.stat(to) {
                replaced = (target.inode, Self.read(to, 0, target.size))
                pin(to)
            }
            return Operation(path: to, inode: moved.inode, change: .rename(from: from, replaced: replaced), what: what)
        case .remove(let path):
            guard let info = Self.stat(path) else { return nil }
            pin(path)
            return Operation(path: path, inode: info.inode, change: .remove(contents: Self.read(path, 0, info.size)), what: what)
        case .syncFile, .syncDirectory, .createDirectory:
            // A new directory is judged at the power loss by whether its parent was flushed
            // since (`durableDirectories`), which holds however the store made it.
            return nil
        }
    }

    private func pin(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { pinned.append(fd) }
    }

    // MARK: The power loss

    /// Whether `POWERLOSS_METADATA=ordered` asks for metadata lost in order only (see
    /// ``powerLoss(using:lossProbability:garbles:metadataInOrder:)``).
    public static var metadataInOrderFromEnvironment: Bool {
        ProcessInfo.processInfo.environment["POWERLOSS_METADATA"] == "ordered"
    }

    /// Stops watching and rewinds the files to what a power loss could leave: each unsynced
    /// operation is lost with probability `lossProbability`, and with `garbles` the last block
    /// of each file's last surviving unsynced write may be garbled. Drop the store first (without
    /// closing it: the process is gone).
    ///
    /// With `metadataInOrder`, unsynced creates, renames and unlinks are lost as a journaling
    /// file system loses them: all those after a random point, none before it (data operations
    /// are still lost at random).
    @discardableResult
    public func powerLoss(using generator: inout SeededGenerator, lossProbability: Double, garbles: Bool,
                          metadataInOrder: Bool = metadataInOrderFromEnvironment) -> Report {
        lock.lock()
        defer { lock.unlock() }
        if let key { FileFaults.remove(observer: key) }
        key = nil
        var report = Report()
        report.unsynced = unsynced.map(\.what)
        var lost = unsynced.map { _ in Double.random(in: 0..<1, using: &generator) < lossProbability }
        if metadataInOrder {
            let metadata = unsynced.indices.filter { !unsynced[$0].change.isData }
            let kept = lossProbability >= 1 ? 0 : lossProbability <= 0 ? metadata.count : Int.random(in: 0...metadata.count, using: &generator)
            for (position, index) in metadata.enumerated() { lost[index] = position >= kept }
        }
        // Strict POSIX: a write is lost sector by sector, each with the same odds; one that
        // loses every sector and its new length is lost whole.
        var tears: [Int: Tear] = [:]
        if model == .strictPOSIX {
            for (index, operation) in unsynced.enumerated() {
                guard case .write(let offset, _, _, let count) = operation.change, count > 0 else { continue }
                let sectors = Array(stride(from: offset / Self.sectorSize * Self.sectorSize, to: offset + Int64(count), by: Int64.Stride(Self.sectorSize)))
                let lostSectors = sectors.filter { _ in Double.random(in: 0..<1, using: &generator) < lossProbability }
                let keepsLength = Bool.random(using: &generator)
                lost[index] = lostSectors.count == sectors.count && !keepsLength
                if !lost[index], !lostSectors.isEmpty {
                    tears[index] = Tear(lostSectors: lostSectors, sectorCount: sectors.count, keepsLength: keepsLength)
                }
            }
        }
        var remap: [UInt64: UInt64] = [:]
        for (index, operation) in unsynced.enumerated().reversed() {
            if lost[index] {
                undo(operation, remap: &remap)
                report.lost.append(operation.what)
            } else if let tear = tears[index], case .write(let offset, _, _, _) = operation.change {
                apply(tear, to: operation, remap: remap)
                report.torn.append("\(operation.what): sectors at \(tear.lostSectors) lost\(tear.keepsLength ? ", length kept" : "")")
                if offset == 0, tear.lostSectors.first == 0, tear.lostSectors.count < tear.sectorCount { report.tornAtStart += 1 }
            }
        }
        if model == .strictPOSIX {
            // A directory whose entry never reached the disk goes, with all it held.
            for path in Self.directories(under: directory).sorted() where !durableDirectories.contains(path) {
                guard !report.lostDirectories.contains(where: { path.hasPrefix($0 + "/") }) else { continue }
                try? FileManager.default.removeItem(atPath: path)
                report.lostDirectories.append(path)
            }
        }
        if garbles {
            // The last surviving write of each file, in the order the files were first written
            // (not by inode number, which differs from run to run: a seed must replay exactly).
            var lastWrite: [UInt64: Int] = [:]
            var files: [UInt64] = []
            for (index, operation) in unsynced.enumerated() where !lost[index] {
                guard case .write = operation.change else { continue }
                if lastWrite[operation.inode] == nil { files.append(operation.inode) }
                lastWrite[operation.inode] = index
            }
            for inode in files where Bool.random(using: &generator) {
                if let what = garble(unsynced[lastWrite[inode]!], remap: remap, using: &generator) { report.garbled.append(what) }
            }
        }
        for fd in pinned { close(fd) }
        pinned = []
        unsynced = []
        return report
    }

    /// Where the file `inode` (as renumbered by recreations) is now, looking at `path` first,
    /// then in its directory.
    private func locate(_ inode: UInt64, near path: String, remap: [UInt64: UInt64]) -> String? {
        var target = inode
        while let next = remap[target] { target = next }
        if Self.inode(path) == target { return path }
        let parent = (path as NSString).deletingLastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        return names.map { parent + "/" + $0 }.first { Self.inode($0) == target }
    }

    /// The sector size writes are torn at under the strict model.
    static let sectorSize: Int64 = 512

    /// How a kept write was torn (strict POSIX).
    private struct Tear {
        /// File offsets of the write's sectors (aligned) that never reached the disk.
        var lostSectors: [Int64]
        /// How many sectors the write touched.
        var sectorCount: Int
        /// Whether the file's new length reached the disk when its last sectors did not.
        var keepsLength: Bool
    }

    /// Undoes the lost sectors of a kept write: each reads as it did before (the old bytes, or
    /// zeros past the file's old end), and the file ends where the kept sectors do unless its
    /// new length was kept too (or a later write extended it).
    private func apply(_ tear: Tear, to operation: Operation, remap: [UInt64: UInt64]) {
        guard case .write(let offset, let old, let oldLength, let count) = operation.change,
              let path = locate(operation.inode, near: operation.path, remap: remap), let size = Self.stat(path)?.size else { return }
        let end = offset + Int64(count)
        for sector in tear.lostSectors {
            let start = max(sector, offset), stop = min(sector + Self.sectorSize, end, size)
            guard stop > start else { continue }
            let oldStop = min(stop, oldLength)
            if oldStop > start {
                Self.write(old[(old.startIndex + Int(start - offset))..<(old.startIndex + Int(oldStop - offset))], to: path, at: start)
            }
            let zeros = max(start, oldLength)
            if stop > zeros { Self.write(Data(count: Int(stop - zeros)), to: path, at: zeros) }
        }
        guard !tear.keepsLength, size == end else { return }
        var keptEnd = oldLength
        for sector in stride(from: offset / Self.sectorSize * Self.sectorSize, to: end, by: Int64.Stride(Self.sectorSize))
        where !tear.lostSectors.contains(sector) {
            keptEnd = max(keptEnd, min(sector + Self.sectorSize, end))
        }
        if keptEnd < size { Self.resize(path, to: keptEnd) }
    }

    private func undo(_ operation: Operation, remap: inout [UInt64: UInt64]) {
        switch operation.change {
        case .write(let offset, let old, let oldLength, let count):
            guard let path = locate(operation.inode, near: operation.path, remap: remap), let size = Self.stat(path)?.size else { return }
            let end = offset + Int64(count)
            // Bytes that were there before and still lie within the file get their old value back.
            let restored = max(0, min(end, size, oldLength) - offset)
            if restored > 0 { Self.write(old.prefix(Int(restored)), to: path, at: offset) }
            if size > end {
                // A kept later write extended the file past this one: what it appended is a hole.
                let start = max(offset, oldLength)
                if end > start { Self.write(Data(count: Int(end - start)), to: path, at: start) }
            } else if size > oldLength {
                Self.resize(path, to: oldLength)
            }
        case .truncate(let oldLength, let tail, let newLength):
            guard let path = locate(operation.inode, near: operation.path, remap: remap), let size = Self.stat(path)?.size else { return }
            if newLength < oldLength, size < oldLength {
                let from = max(size, newLength)
                Self.write(tail.suffix(from: tail.startIndex + Int(from - newLength)), to: path, at: from)
            } else if newLength > oldLength, size == newLength {
                Self.resize(path, to: oldLength)
            }
        case .create:
            guard Self.inode(operation.path) == operation.inode else { return }
            // Held open, so that a file recreated later in the rewind does not get its inode
            // number and receive the undo (or garbling) meant for this one.
            pin(operation.path)
            unlink(operation.path)
        case .rename(let from, let replaced):
            guard Self.inode(operation.path) == operation.inode, Self.stat(from) == nil else { return }
            rename(operation.path, from)
            if let replaced, let inode = Self.recreate(operation.path, replaced.contents) { remap[replaced.inode] = inode }
        case .remove(let contents):
            if Self.stat(operation.path) == nil, let inode = Self.recreate(operation.path, contents) { remap[operation.inode] = inode }
        }
    }

    private func garble(_ operation: Operation, remap: [UInt64: UInt64], using generator: inout SeededGenerator) -> String? {
        guard case .write(let offset, _, _, let count) = operation.change,
              let path = locate(operation.inode, near: operation.path, remap: remap), let size = Self.stat(path)?.size else { return nil }
        let end = min(offset + Int64(count), size)
        guard end > offset else { return nil }
        let blockStart = max(offset, (end - 1) / 512 * 512)
        let start = Int64.random(in: blockStart..<end, using: &generator)
        let stop = Int64.random(in: (start + 1)...end, using: &generator)
        Self.write(Data(count: Int(stop - start)), to: path, at: start)
        return "zeros over \(start)..<\(stop) of \(path)"
    }

    // MARK: Raw file access (not through FileIO: the simulator's own work is not observed)

    private static func stat(_ path: String) -> (inode: UInt64, size: Int64)? {
        var info = FileStatus()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_ino), Int64(info.st_size))
    }

    private static func inode(_ path: String) -> UInt64? { stat(path)?.inode }

    private static func isDirectory(_ path: String) -> Bool {
        var info = FileStatus()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// `root` and every directory under it.
    private static func directories(under root: String) -> [String] {
        var found = [root]
        var index = 0
        while index < found.count {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: found[index])) ?? []
            found += names.map { found[index] + "/" + $0 }.filter(isDirectory)
            index += 1
        }
        return found
    }

    private static func read(_ path: String, _ start: Int64, _ end: Int64) -> Data {
        guard end > start else { return Data() }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return Data() }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: Int(end - start))
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
        return Data(buffer.prefix(max(0, count)))
    }

    private static func write(_ data: Data, to path: String, at offset: Int64) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
    }

    private static func resize(_ path: String, to length: Int64) {
        _ = truncate(path, off_t(length))
    }

    /// Creates `path` holding `contents`; its inode.
    private static func recreate(_ path: String, _ contents: Data) -> UInt64? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        _ = contents.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        return inode(path)
    }
}

/// The settings and figures of a run of power-loss rounds, shared by the stores' tests.
public struct PowerLossTally: Sendable, CustomStringConvertible {
    /// Rounds to run: `POWERLOSS_ROUNDS`, or `defaultRounds` (small, for CI).
    public static func rounds(default defaultRounds: Int) -> Int {
        ProcessInfo.processInfo.environment["POWERLOSS_ROUNDS"].flatMap(Int.init) ?? defaultRounds
    }

    /// The first round's seed: `POWERLOSS_SEED`, or a fixed one so that CI runs the same rounds.
    public static var seed: UInt64 {
        ProcessInfo.processInfo.environment["POWERLOSS_SEED"].flatMap { UInt64($0) } ?? 0x5EED_0011
    }

    public var rounds = 0
    /// Where the power went: "open", "append", "compaction", "seal", "retention", "flush", or
    /// "after" (once the whole workload had run).
    public var phases: [String: Int] = [:]
    /// Rounds where the power went a second time, after the first rewind (and of them, how many
    /// while the store was opening: recovering).
    public var secondPowerLosses = 0
    public var secondDuringRecovery = 0
    public var unsyncedOperations = 0
    public var lostOperations = 0
    public var garbledBlocks = 0
    /// Strict POSIX's rare paths: writes torn at sectors, of them first sectors of a file lost
    /// under a later one kept (a torn first journal line), and directories lost with their entry.
    public var tornWrites = 0
    public var tornFirstSectors = 0
    public var lostDirectories = 0
    /// The save in flight at the power loss (unacknowledged) came back whole, or not at all.
    public var inFlightPresent = 0
    public var inFlightAbsent = 0
    /// Unacknowledged saves (beyond the last flush, with periodic durability) that came back.
    public var unflushedKept = 0
    public var unflushedLost = 0
    /// Failures: acknowledged data missing, data not as saved (or half a save), open failing.
    public var lost = 0
    public var altered = 0
    public var corruptOnOpen = 0
    /// How many reopenings failed with each error (paths and numbers left out).
    public var corruptReasons: [String: Int] = [:]
    /// A description of each failing round, seed first.
    public var failures: [String] = []

    public init() {}

    public var description: String {
        "\(rounds) rounds; power lost during \(phases.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
            + "second power losses \(secondPowerLosses) (\(secondDuringRecovery) while opening); "
            + "\(unsyncedOperations) unsynced operations, \(lostOperations) lost, \(garbledBlocks) blocks garbled, "
            + "\(tornWrites) writes torn (\(tornFirstSectors) with a file's first sector lost), \(lostDirectories) directories lost; "
            + "in-flight save present \(inFlightPresent), absent \(inFlightAbsent); unflushed saves kept \(unflushedKept), lost \(unflushedLost); "
            + "FAILURES: lost \(lost), altered \(altered), corrupt on open \(corruptOnOpen)"
            + (corruptReasons.isEmpty ? "" : " \(corruptReasons.sorted { $0.value > $1.value }.map { "\($0.value)× \($0.key)" })")
    }

    /// Counts a reopening that failed with `error`, in the round described by `round`.
    public mutating func failedToOpen(_ error: any Error, round: String) {
        corruptOnOpen += 1
        let reason = "\(error)".split(separator: " ").map { word in
            word.contains("/") ? "PATH" : word.allSatisfy({ $0.isNumber || $0 == "." || $0 == "," }) ? "N" : String(word)
        }.joined(separator: " ")
        corruptReasons[String(reason.prefix(100)), default: 0] += 1
        failures.append("\(round): reopening failed: \(error)")
    }

    /// Counts what a rewind did.
    public mutating func add(_ report: PowerLossSimulator.Report) {
        unsyncedOperations += report.unsynced.count
        lostOperations += report.lost.count
        garbledBlocks += report.garbled.count
        tornWrites += report.torn.count
        tornFirstSectors += report.tornAtStart
        lostDirectories += report.lostDirectories.count
    }
}
#endif

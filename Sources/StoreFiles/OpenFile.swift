import Foundation
import StoreProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file held open, so that "is the file at this path still the one I read?" has a sound answer.
///
/// Comparing `stat` fields of a path over time is not: once a file is replaced by `rename` and
/// its old inode freed, the kernel hands the same inode number to the next new file, and a file
/// of the same size then looks unchanged. An open descriptor keeps its inode allocated, so while
/// an `OpenFile` lives no other file can have its (device, inode), and `isStill(at:)` cannot be
/// fooled. Stores pin the files they have read this way and read them through the descriptor.
public final class OpenFile: Sendable {
    /// The path the file was opened at.
    public let path: String
    private let descriptor: Int32
    private let device: UInt64
    private let inode: UInt64

    /// Opens `path` for reading (a directory, to hold it, when `directory` is set); `nil` when
    /// there is nothing there. Returns at once whatever is there (a FIFO does not block it).
    /// - Throws: `DataStoreError/Code/invalidConfiguration` when `path` is not a regular file (or
    ///   not a directory, when `directory` is set); `DataStoreError/Code/ioFailure` when the
    ///   system refuses.
    public static func open(_ path: String, directory: Bool = false) throws -> OpenFile? {
        guard let descriptor = try FileIO.openRegular(path, O_RDONLY, directory: directory) else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = FileIO.failure("inspect", path)
            close(descriptor)
            throw error
        }
        return OpenFile(path: path, descriptor: descriptor, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private init(path: String, descriptor: Int32, device: UInt64, inode: UInt64) {
        self.path = path
        self.descriptor = descriptor
        self.device = device
        self.inode = inode
    }

    deinit { close(descriptor) }

    /// Whether `path` names this very file now (not a replacement, and not missing).
    /// - Complexity: one `stat` call.
    public func isStill(at path: String) throws -> Bool {
        try sizeIfSame(at: path) != nil
    }

    /// The size of the file at `path` when it is this very file, `nil` when `path` names
    /// another file or none.
    /// - Complexity: one `stat` call.
    public func sizeIfSame(at path: String) throws -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw FileIO.failure("inspect", path)
        }
        guard UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else { return nil }
        return Int64(info.st_size)
    }

    /// The file's current size.
    public func size() throws -> Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileIO.failure("inspect", path) }
        return Int64(info.st_size)
    }

    /// Fills `buffer` with this file's bytes from byte `offset` on, with `pread`: fewer bytes
    /// only where the file ends first. For readers that need part of a file (a record at a known
    /// offset) without reading all of it.
    /// - Returns: How many bytes were read.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + Int64(filled)))
            if count < 0 {
                if errno == EINTR { continue }
                throw FileIO.failure("read", path)
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Reads from byte `offset` to the end of this file (whatever its path names now).
    public func read(from offset: Int64 = 0) throws -> Data {
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var position = offset
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(position)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileIO.failure("read", path)
            }
            if count == 0 { break }
            result.append(contentsOf: buffer[0..<count])
            position += Int64(count)
        }
        return result
    }
}

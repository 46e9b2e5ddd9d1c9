package dev.hearth.server.nodes;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a data directory for as long as this process serves it: two processes on
 * one directory would each take the other's computers and clusters for orphans. The kernel lets go
 * when the process dies, so a directory whose lock is free has no live server.
 */
final class DataDirLock implements AutoCloseable {
    private final FileChannel file;
    private final FileLock lock;

    private DataDirLock(FileChannel file, FileLock lock) {
        this.file = file;
        this.lock = lock;
    }

    static DataDirLock take(Path dataDir) throws IOException {
        var file = FileChannel.open(dataDir.resolve("serve.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = file.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // a server in this JVM holds it (tests run several)
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
        if (lock == null) {
            file.close();
            throw new IllegalStateException("another hearth serve is using data directory " + dataDir
                    + "; stop it first, or give this one its own --data-dir");
        }
        return new DataDirLock(file, lock);
    }

    @Override
    public void close() {
        try {
            lock.release();
            file.close();
        } catch (IOException e) {
            // the lock goes with the process either way
        }
    }
}

package dev.hearth.server.disks;

import java.io.IOException;
import dev.hearth.server.process.Descriptors;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The two file-system calls a copy that shares blocks is made of, straight to the kernel through FFM
 * (an {@code fsfreeze} or {@code cp --reflink} would cost a process each, several milliseconds here):
 * FICLONE, which makes a new file share every block of another, and FIFREEZE/FITHAW, which hold a
 * file system's writers while it is flushed and copied, so that the copy is one instant of it.
 */
public final class Blocks {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final long FICLONE = 0x40049409L;
    private static final long FIFREEZE = 0xC0045877L;
    private static final long FITHAW = 0xC0045878L;
    private static final int O_RDONLY = 0;
    private static final int O_WRONLY = 1;
    private static final int O_CREAT = 0x40;
    private static final int O_EXCL = 0x80;
    private static final int O_CLOEXEC = 0x80000;
    // int open(const char *path, int flags, ...): the mode is variadic
    private static final MethodHandle OPEN = withErrno("open", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    // int ioctl(int fd, unsigned long request, ...): FICLONE's source descriptor and FIFREEZE's unused int
    private static final MethodHandle IOCTL = withErrno("ioctl", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle STRERROR = Descriptors.downcall("strerror", ValueLayout.ADDRESS,
            ValueLayout.JAVA_INT);
    // int syncfs(int fd), int fdatasync(int fd)
    private static final MethodHandle SYNCFS = fixedWithErrno("syncfs");
    private static final MethodHandle FDATASYNC = fixedWithErrno("fdatasync");

    private Blocks() {
    }

    /** Work done while file systems are frozen. */
    public interface Frozen {
        void run() throws IOException;
    }

    /** {@code to} (new) shares every block of {@code from}; both on one file system that can (XFS with reflinks, btrfs). */
    public static void clone(Path from, Path to) throws IOException {
        int source = open(from, O_RDONLY | O_CLOEXEC, 0);
        try {
            int target = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            try {
                ioctl(target, FICLONE, source, "clone " + from + " to " + to);
            } catch (IOException e) {
                Files.deleteIfExists(to);
                throw e;
            } finally {
                Descriptors.close(target);
            }
        } finally {
            Descriptors.close(source);
        }
    }

    /**
     * Writes down what the file systems on {@code mountPoints} hold in memory, then the disk images
     * under them ({@code images}, files on the volume), while their writers go on: a freeze that
     * follows has little left to flush, so writers wait for it milliseconds, not the time a
     * gigabyte just written takes to reach the disk through the loop device and the volume.
     */
    public static void flush(List<Path> mountPoints, List<Path> images) throws IOException {
        for (Path mountPoint : mountPoints) {
            withDescriptor(mountPoint, fd -> call(SYNCFS, fd, "syncfs " + mountPoint));
        }
        for (Path image : images) {
            withDescriptor(image, fd -> call(FDATASYNC, fd, "fdatasync " + image));
        }
    }

    private interface OnDescriptor {
        void run(int fd) throws IOException;
    }

    private static void withDescriptor(Path path, OnDescriptor work) throws IOException {
        int fd = open(path, O_RDONLY | O_CLOEXEC, 0);
        try {
            work.run(fd);
        } finally {
            Descriptors.close(fd);
        }
    }

    private static void call(MethodHandle function, int fd, String what) throws IOException {
        try (var arena = Arena.ofConfined()) {
            var state = arena.allocate(STATE);
            if ((int) function.invokeExact(state, fd) < 0) {
                throw failure(what, state);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(what, e);
        }
    }

    /**
     * Runs {@code work} with the file systems mounted on {@code mountPoints} (each must be a mount point)
     * frozen, in that order (flushed, their writers waiting), and thaws them in the reverse order,
     * whatever happens.
     */
    public static void frozen(List<Path> mountPoints, Frozen work) throws IOException {
        var frozen = new ArrayList<Integer>();
        try {
            for (Path mountPoint : mountPoints) {
                if (!Disks.mounted(mountPoint)) {
                    // A freeze of a plain directory would freeze the file system it is on: the host's, say.
                    throw new IOException(mountPoint + " is not a mount point");
                }
                int fd = open(mountPoint, O_RDONLY | O_CLOEXEC, 0);
                frozen.add(fd);
                ioctl(fd, FIFREEZE, 0, "freeze " + mountPoint);
            }
            work.run();
        } finally {
            for (int fd : frozen.reversed()) {
                try {
                    ioctl(fd, FITHAW, 0, "thaw");
                } catch (IOException ignored) {
                    // not frozen: its freeze was what failed
                } finally {
                    Descriptors.close(fd);
                }
            }
        }
    }

    /**
     * Thaws every file system mounted under {@code dir} that a copy left frozen: a Hearth killed
     * between FIFREEZE and FITHAW would leave their writers (a computer, a cluster) waiting for ever.
     * Answers the mount points it thawed.
     */
    public static List<Path> thawAll(Path dir) {
        var thawed = new ArrayList<Path>();
        for (Path mountPoint : Disks.mountPointsUnder(dir)) {
            try {
                int fd = open(mountPoint, O_RDONLY | O_CLOEXEC, 0);
                try {
                    ioctl(fd, FITHAW, 0, "thaw " + mountPoint);
                    thawed.add(mountPoint);
                } catch (IOException notFrozen) {
                    // EINVAL: it was not frozen, the usual case
                } finally {
                    Descriptors.close(fd);
                }
            } catch (IOException gone) {
                // unmounted meanwhile
            }
        }
        return thawed;
    }

    private static int open(Path path, int flags, int mode) throws IOException {
        try (var arena = Arena.ofConfined()) {
            var state = arena.allocate(STATE);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path.toString()), flags, mode);
            if (fd < 0) {
                throw failure("open " + path, state);
            }
            return fd;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("open " + path, e);
        }
    }

    private static void ioctl(int fd, long request, int argument, String what) throws IOException {
        try (var arena = Arena.ofConfined()) {
            var state = arena.allocate(STATE);
            if ((int) IOCTL.invokeExact(state, fd, request, argument) < 0) {
                throw failure(what, state);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(what, e);
        }
    }

    private static IOException failure(String what, MemorySegment state) throws Throwable {
        int errno = (int) ERRNO.get(state, 0L);
        var message = ((MemorySegment) STRERROR.invokeExact(errno)).reinterpret(256).getString(0);
        return new IOException(what + ": " + message);
    }

    /** A function of one int answering an int, not variadic, with errno kept. */
    private static MethodHandle fixedWithErrno(String name) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), Linker.Option.captureCallState("errno"));
    }

    private static MethodHandle withErrno(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor,
                Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    }
}

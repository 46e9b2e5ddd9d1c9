package dev.hearth.server.network;

import dev.hearth.server.process.Commands;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies an nft batch through libnftables (the library the nft command is made of, from Debian's
 * libnftables1, which nftables depends on) over FFM: starting {@code nft -f -} from the JVM cost
 * 10-20 ms, on the path of every wake. One context for the server, used by one caller at a time
 * (a context is not thread-safe); where the library cannot be loaded, the nft command runs as before.
 */
final class Nft {
    private static final Logger LOG = LoggerFactory.getLogger(Nft.class);
    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final Optional<Library> LIBRARY = Library.load();

    private Nft() {
    }

    static void apply(String batch) {
        if (LIBRARY.isPresent()) {
            LIBRARY.get().run(batch);
        } else {
            Commands.check(List.of("nft", "-f", "-"), batch, LIMIT);
        }
    }

    /** What nft prints for a command such as {@code list table inet t}; empty when the command fails. */
    static Optional<String> read(String command) {
        if (LIBRARY.isPresent()) {
            return LIBRARY.get().read(command);
        }
        var result = Commands.run(List.of("nft", "-f", "-"), command, LIMIT);
        return result.ok() ? Optional.of(result.stdout()) : Optional.empty();
    }

    private record Library(MethodHandle run, MethodHandle errors, MethodHandle output, MemorySegment context,
                           ReentrantLock lock) {
        static Optional<Library> load() {
            try {
                var linker = Linker.nativeLinker();
                var lookup = SymbolLookup.libraryLookup("libnftables.so.1", Arena.global());
                var create = linker.downcallHandle(lookup.find("nft_ctx_new").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
                var bufferErrors = linker.downcallHandle(lookup.find("nft_ctx_buffer_error").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
                var bufferOutput = linker.downcallHandle(lookup.find("nft_ctx_buffer_output").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
                var run = linker.downcallHandle(lookup.find("nft_run_cmd_from_buffer").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
                var errors = linker.downcallHandle(lookup.find("nft_ctx_get_error_buffer").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.ADDRESS.withTargetLayout(
                                MemoryLayout.sequenceLayout(Long.MAX_VALUE, ValueLayout.JAVA_BYTE)),
                                ValueLayout.ADDRESS));
                var output = linker.downcallHandle(lookup.find("nft_ctx_get_output_buffer").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.ADDRESS.withTargetLayout(
                                MemoryLayout.sequenceLayout(Long.MAX_VALUE, ValueLayout.JAVA_BYTE)),
                                ValueLayout.ADDRESS));
                var context = (MemorySegment) create.invokeExact(0);
                if (context.equals(MemorySegment.NULL)) {
                    return Optional.empty();
                }
                // Buffered, so that nothing is printed on the server's stdout and errors can be read back.
                bufferErrors.invoke(context);
                bufferOutput.invoke(context);
                return Optional.of(new Library(run, errors, output, context, new ReentrantLock()));
            } catch (Throwable e) {
                LOG.info("libnftables is not usable ({}); firewall changes run the nft command", e.toString());
                return Optional.empty();
            }
        }

        /** Runs a listing; the output buffer is read (and so emptied) under the same lock. */
        Optional<String> read(String command) {
            lock.lock();
            try (var arena = Arena.ofConfined()) {
                int result = (int) run.invokeExact(context, arena.allocateFrom(command));
                var text = ((MemorySegment) output.invokeExact(context)).getString(0);
                if (result != 0) {
                    var ignored = (MemorySegment) errors.invokeExact(context);
                    return Optional.empty();
                }
                return Optional.of(text);
            } catch (Throwable e) {
                throw new Commands.Failure("libnftables failed: " + e);
            } finally {
                lock.unlock();
            }
        }

        void run(String batch) {
            lock.lock();
            try (var arena = Arena.ofConfined()) {
                int result = (int) run.invokeExact(context, arena.allocateFrom(batch));
                if (result != 0) {
                    var message = (MemorySegment) errors.invokeExact(context);
                    throw new Commands.Failure("nft failed: " + message.getString(0).strip());
                }
            } catch (Commands.Failure e) {
                throw e;
            } catch (Throwable e) {
                throw new Commands.Failure("libnftables failed: " + e);
            } finally {
                lock.unlock();
            }
        }
    }
}

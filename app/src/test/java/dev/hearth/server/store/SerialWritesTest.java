package dev.hearth.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite store under many writers on virtual threads: the one holding the write lock may be unscheduled
 * mid-transaction (here it sleeps), and the others must neither fail with SQLITE_BUSY nor starve it of a carrier.
 */
@Tag("unit")
class SerialWritesTest {
    @TempDir
    Path dir;
    private Store store;
    private Jdbi jdbi;

    @BeforeEach
    void open() {
        store = Store.open(null, dir);
        jdbi = store.jdbi();
        jdbi.useHandle(h -> h.execute("CREATE TABLE tally (n INTEGER)"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void manyWritersOnVirtualThreadsAllCommit() throws Exception {
        int writers = 64;
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var done = new ArrayList<Future<?>>();
            for (int i = 0; i < writers; i++) {
                done.add(threads.submit(() -> {
                    jdbi.useTransaction(h -> {
                        int n = h.createQuery("SELECT count(*) FROM tally").mapTo(Integer.class).one();
                        Thread.sleep(5);
                        h.execute("INSERT INTO tally VALUES (?)", n);
                    });
                    return null;
                }));
            }
            for (var f : done) {
                f.get();
            }
        }
        // Each saw every write before its own: one at a time.
        assertEquals(writers, (int) jdbi.withHandle(h -> h.createQuery("SELECT count(DISTINCT n) FROM tally")
                .mapTo(Integer.class).one()));
    }

    @Test
    void aWriterKeptWaitingTooLongIsToldTheStoreIsUnavailable() throws Exception {
        var held = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var holder = Executors.newVirtualThreadPerTaskExecutor().submit(() -> {
            jdbi.useTransaction(h -> {
                h.execute("INSERT INTO tally VALUES (1)");
                held.countDown();
                release.await();
            });
            return null;
        });
        held.await();
        var refused = assertThrows(StoreUnavailable.class, () -> jdbi.useTransaction(h -> h.execute("INSERT INTO tally VALUES (2)")));
        assertTrue(StoreUnavailable.causedBy(new RuntimeException(refused)), "found under a wrapper too");
        release.countDown();
        holder.get();
        jdbi.useTransaction(h -> h.execute("INSERT INTO tally VALUES (3)"));
        assertEquals(2, (int) jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM tally").mapTo(Integer.class).one()));
    }
}

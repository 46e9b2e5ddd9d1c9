package dev.hearth.server.limits;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The free space {@code hearth serve} keeps in its data directory, where computers, databases, checkpoints,
 * images and the store all live: below it nothing new is placed, so the work already running and the store
 * itself still have room to finish.
 */
public final class DiskReserve {
    private final Path dataDir;
    private final long reserveBytes;

    public DiskReserve(Path dataDir, long reserveMb) {
        this.dataDir = dataDir;
        this.reserveBytes = reserveMb << 20;
    }

    /** Refuses new work (507 insufficient_storage) while the data directory's free space is under the reserve. */
    public void require() {
        long free = free();
        if (free < reserveBytes) {
            throw new ApiException(ErrorCode.INSUFFICIENT_STORAGE, "the server has " + (free >> 20)
                    + " MB free, under the " + (reserveBytes >> 20) + " MB it keeps in reserve; nothing new is "
                    + "placed until space is freed (delete checkpoints, computers, databases or images)",
                    Map.of("free_mb", free >> 20, "reserve_mb", reserveBytes >> 20));
        }
    }

    private long free() {
        try {
            return Files.getFileStore(dataDir).getUsableSpace();
        } catch (IOException e) {
            return 0;
        }
    }
}

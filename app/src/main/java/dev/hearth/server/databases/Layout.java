package dev.hearth.server.databases;

import java.nio.file.Path;

/**
 * Where a database's files are, under the databases directory (owned by the clusters' OS user):
 * {@code clusters/<id>/{data,run,postgres.log}}, {@code checkpoints/<id>/data}, {@code history/<id>}, {@code trash/}
 * for trees being removed, and (owned by root) {@code disks/<id>.img} and {@code disks/<id>.wal.img},
 * the file systems mounted on a database's cluster directory and on its {@code data/pg_wal}.
 */
record Layout(Path root) {
    Path cluster(String id) {
        return root.resolve("clusters").resolve(id);
    }

    Path data(String id) {
        return cluster(id).resolve("data");
    }

    Path socketDir(String id) {
        return cluster(id).resolve("run");
    }

    Path log(String id) {
        return cluster(id).resolve("postgres.log");
    }

    Path checkpoint(String id) {
        return root.resolve("checkpoints").resolve(id);
    }

    Path checkpointData(String id) {
        return checkpoint(id).resolve("data");
    }

    Path wal(String id) {
        return data(id).resolve("pg_wal");
    }

    Path disks() {
        return root.resolve("disks");
    }

    Path dataDisk(String id) {
        return disks().resolve(id + ".img");
    }

    Path walDisk(String id) {
        return disks().resolve(id + ".wal.img");
    }

    /** What a database keeps of its past: {@code history/<id>/{wal,bases}} (see {@link Bases}). */
    Path history(String id) {
        return root.resolve("history").resolve(id);
    }

    /** Its archived WAL segments, written by its cluster's {@code archive_command}. */
    Path archive(String id) {
        return history(id).resolve("wal");
    }

    Path bases(String id) {
        return history(id).resolve("bases");
    }

    Path trash() {
        return root.resolve("trash");
    }
}

package dev.hearth.server.databases;

import java.nio.file.Path;

/**
 * Where a database's files are, under the databases directory (owned by the clusters' OS user):
 * {@code clusters/<id>/{data,run,postgres.log}}, {@code checkpoints/<id>/data}, and {@code trash/}
 * for trees being removed.
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

    Path trash() {
        return root.resolve("trash");
    }
}

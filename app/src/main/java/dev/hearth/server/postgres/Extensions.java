package dev.hearth.server.postgres;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The extensions beyond PostgreSQL's trusted ones that a database's owner creates itself, no
 * superuser involved: those of {@link #ALLOWED} this PostgreSQL has, through pgextwlist (Debian's
 * {@code postgresql-15-pgextwlist}), which runs their scripts as the bootstrap superuser, then the
 * script in {@code config/extensions/NAME/after-create.sql} that gives the database's owner what
 * the extension made. Any other untrusted extension PostgreSQL itself refuses ("permission denied to
 * create extension ... Must be superuser"), and no session can change the list (it is superuser-only).
 */
final class Extensions {
    /**
     * What an owner may add: nothing here reads or writes the server's files, reaches its other
     * databases without a password, or changes superuser-only settings. Left out, with the reason in
     * docs/api.md: pg_cron and pgaudit (their settings are the superuser's), adminpack, file_fdw,
     * pageinspect, pg_surgery, pg_visibility, pg_walinspect and their kind (files or raw pages).
     */
    static final List<String> ALLOWED = List.of("address_standardizer", "autoinc", "bloom", "dblink",
            "dict_xsyn", "earthdistance", "hypopg", "insert_username", "intagg", "moddatetime", "pg_partman",
            "pg_stat_statements", "postgis", "postgis_raster", "postgis_topology", "postgres_fdw", "refint");

    private static final String SCHEMA_TO_OWNER = """
            GRANT ALL ON ALL TABLES IN SCHEMA @extschema@ TO @database_owner@;
            GRANT ALL ON ALL SEQUENCES IN SCHEMA @extschema@ TO @database_owner@;
            GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA @extschema@ TO @database_owner@;
            GRANT EXECUTE ON ALL PROCEDURES IN SCHEMA @extschema@ TO @database_owner@;
            """;
    // What only the extension's owner (the superuser) could use otherwise.
    private static final Map<String, String> AFTER_CREATE = Map.of(
            "pg_partman", SCHEMA_TO_OWNER,
            "postgres_fdw", "GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw TO @database_owner@;\n",
            "postgis_topology", "GRANT ALL ON ALL TABLES IN SCHEMA topology TO @database_owner@;\n"
                    + "GRANT ALL ON ALL SEQUENCES IN SCHEMA topology TO @database_owner@;\n");

    private final PostgresHost host;
    private final Path scripts;
    private final Map<String, List<String>> loading = new ConcurrentHashMap<>();

    private Extensions(PostgresHost host, Path scripts) {
        this.host = host;
        this.scripts = scripts;
    }

    /** Writes the scripts pgextwlist runs after a create into {@code dir}, for the clusters' OS user. */
    static Extensions write(Path dir, PostgresHost host) throws IOException {
        for (var script : AFTER_CREATE.entrySet()) {
            Path file = dir.resolve(script.getKey()).resolve("after-create.sql");
            Files.createDirectories(file.getParent());
            Files.writeString(file, script.getValue(), StandardCharsets.UTF_8);
            host.giveToClusterUser(file.getParent());
            host.giveToClusterUser(file);
        }
        host.giveToClusterUser(dir);
        return new Extensions(host, dir);
    }

    /** The settings that let owners create the allowed extensions, when {@code version} has pgextwlist. */
    List<String> loading(String version) {
        return loading.computeIfAbsent(version, v -> {
            Path lib = host.bin(v, "postgres").getParent().getParent().resolve("lib");
            if (!Files.exists(lib.resolve("plugins").resolve("pgextwlist.so"))) {
                return List.of();
            }
            return List.of("-c", "local_preload_libraries=pgextwlist",
                    "-c", "extwlist.extensions=" + String.join(",", available(v)),
                    "-c", "extwlist.custom_path=" + scripts);
        });
    }

    /** The allowed extensions {@code version}'s PostgreSQL has (their control files are installed). */
    private List<String> available(String version) {
        Path dir = host.shareDir(version).resolve("extension");
        return ALLOWED.stream().filter(name -> Files.exists(dir.resolve(name + ".control"))).toList();
    }
}

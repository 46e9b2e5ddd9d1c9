package dev.hearth.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hearth.support.ChildRun;
import dev.hearth.support.Repository;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A client generated from docs/openapi.json by a mainstream generator (openapi-typescript, pinned in
 * app/src/test/openapi-client/package-lock.json) and a program type-checked against it by tsc:
 * required fields are required there, values are typed, and what the API refuses does not compile
 * (check.ts); and the TypeScript SDK's hand-written declarations checked against it (sdk.ts): every
 * field the API answers is declared, with a type its values fit. OpenApiTest keeps docs/openapi.json
 * the document the server serves.
 */
class OpenApiClientTest {
    private static final Path SOURCES = Repository.root().resolve("app/src/test/openapi-client");
    private static final Path WORK = Path.of("target", "openapi-client").toAbsolutePath();

    @Test
    void aGeneratedClientTypeChecksAProgramAndRefusesWhatTheApiRefuses() throws Exception {
        Files.createDirectories(WORK);
        for (String file : List.of("package.json", "package-lock.json", "check.ts", "sdk.ts")) {
            Files.copy(SOURCES.resolve(file), WORK.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.copy(Repository.root().resolve("docs/openapi.json"), WORK.resolve("openapi.json"),
                StandardCopyOption.REPLACE_EXISTING);
        Path installed = WORK.resolve("node_modules/.package-lock.json");
        if (!Files.exists(installed) || Files.getLastModifiedTime(installed).compareTo(
                Files.getLastModifiedTime(WORK.resolve("package-lock.json"))) < 0) {
            var npm = run("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error");
            assertEquals(0, npm.exit(), npm.output());
        }
        var generated = run("node_modules/.bin/openapi-typescript", "openapi.json", "-o", "api.d.ts");
        assertEquals(0, generated.exit(), generated.output());
        var checked = run("node_modules/.bin/tsc", "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext",
                "--moduleResolution", "nodenext", "check.ts");
        assertEquals(0, checked.exit(), checked.output());
        var sdk = run("node_modules/.bin/tsc", "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext",
                "--moduleResolution", "nodenext", "sdk.ts");
        assertEquals(0, sdk.exit(), "the TypeScript SDK's declarations lag the document:\n" + sdk.output());
    }

    private static ChildRun run(String... command) throws Exception {
        return ChildRun.of(WORK, List.of(command), Map.of(), 5);
    }
}

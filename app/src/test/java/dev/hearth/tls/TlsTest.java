package dev.hearth.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.Eventually;
import dev.hearth.api.Json;
import dev.hearth.cli.Cli;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.client.Trust;
import dev.hearth.server.Config;
import dev.hearth.server.tls.TlsFiles;
import dev.hearth.server.tls.TlsSettings;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.time.Duration;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API over HTTPS with a CA the test makes: clients that trust it and clients that do not, plain
 * HTTP sent to the TLS port, the redirect listener, and a certificate renewed under a running server.
 */
@HearthServerTest(config = "withTls")
class TlsTest {
    record Run(int code, String out, String err) {
    }

    @Injected
    private TestServer server;
    @TempDir
    Path config;
    private final Path certs;
    private final TestCa ca;
    private final TestCa stranger;
    private final TlsFiles files;
    private final int redirectPort;

    TlsTest() throws Exception {
        certs = Files.createTempDirectory("hearth-tls");
        ca = new TestCa(certs, "Test CA");
        stranger = new TestCa(certs, "Other CA");
        files = new TlsFiles(certs.resolve("server.pem"), certs.resolve("server-key.pem"));
        ca.issue(files, "localhost", "127.0.0.1");
        try (var free = new ServerSocket(0)) {
            redirectPort = free.getLocalPort();
        }
    }

    UnaryOperator<Config> withTls() {
        return c -> c.withTls(new TlsSettings(Optional.of(files), Optional.of(files), false,
                Optional.of("127.0.0.1:" + redirectPort)));
    }

    @AfterAll
    void removeCertificates() throws Exception {
        try (var all = Files.list(certs)) {
            for (var f : all.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(certs);
    }

    private int port() {
        return URI.create(server.baseUrl()).getPort();
    }

    private HearthClient trusted() {
        return new HearthClient(server.baseUrl(), KeyFileTokens.read(server.dataDir.resolve("admin-key.json")),
                Optional.of(Trust.of(ca.caFile)));
    }

    private Run cli(Map<String, String> extraEnv, String... args) {
        var env = new HashMap<>(Map.of("HEARTH_URL", server.baseUrl(),
                "HEARTH_KEY_FILE", server.dataDir.resolve("admin-key.json").toString()));
        env.putAll(extraEnv);
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(env, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true), new PrintStream(err, true), config));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> plain(String url, String method, String token) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url)).method(method, method.equals("POST")
                ? HttpRequest.BodyPublishers.ofString("{\"name\":\"over-plain-http\"}") : HttpRequest.BodyPublishers.noBody())
                .header("Content-Type", "application/json").header("Idempotency-Key", "k-" + System.nanoTime());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try (var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void clientsThatTrustTheCaUseTheApiOverHttps() throws Exception {
        assertTrue(server.baseUrl().startsWith("https://127.0.0.1:"), server.baseUrl());
        var keyFile = Json.mapper().readTree(server.dataDir.resolve("admin-key.json").toFile());
        assertEquals(server.baseUrl(), keyFile.path("audience").asText());
        assertEquals(server.baseUrl() + "/auth/token", keyFile.path("token_url").asText());

        var me = trusted().send("GET", "/me", null, Map.of());
        assertEquals(200, me.status(), String.valueOf(me.body()));
        assertEquals("max-age=31536000", me.header("Strict-Transport-Security").orElse(""), "HSTS on every answer");

        var viaEnv = cli(Map.of("HEARTH_CA_FILE", ca.caFile.toString()), "workspaces", "create", "over-tls");
        assertEquals(0, viaEnv.code(), viaEnv.err());
        var viaFlag = cli(Map.of(), "--ca-file", ca.caFile.toString(), "workspaces", "list");
        assertEquals(0, viaFlag.code(), viaFlag.err());
        assertTrue(viaFlag.out().contains("over-tls"), viaFlag.out());
    }

    @Test
    void aServerTheClientCannotVerifyIsRefusedWithAClearMessage() {
        for (var env : List.of(Map.of("HEARTH_CA_FILE", stranger.caFile.toString()), Map.<String, String>of())) {
            var refused = cli(env, "me");
            assertEquals(1, refused.code(), refused.out());
            assertTrue(refused.err().startsWith("error: cannot verify the TLS certificate of " + server.baseUrl()),
                    refused.err());
            assertTrue(refused.err().contains("--ca-file"), refused.err());
        }
        var wrong = new HearthClient(server.baseUrl(), KeyFileTokens.read(server.dataDir.resolve("admin-key.json")),
                Optional.of(Trust.of(stranger.caFile)));
        assertThrows(UncheckedIOException.class, () -> wrong.get("/me"));
        var missing = cli(Map.of("HEARTH_CA_FILE", certs.resolve("nope.pem").toString()), "me");
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("cannot read the CA file"), missing.err());
    }

    @Test
    void plainHttpToTheTlsPortIsRedirectedAndNeverServed() throws Exception {
        String token = KeyFileTokens.read(server.dataDir.resolve("admin-key.json")).token(trusted()).orElseThrow();
        String plainBase = "http://127.0.0.1:" + port() + "/v1";
        var list = plain(plainBase + "/workspaces?limit=5", "GET", token);
        assertEquals(308, list.statusCode(), list.body());
        assertEquals("https://127.0.0.1:" + port() + "/v1/workspaces?limit=5", list.headers().firstValue("Location").orElse(""));
        JsonNode error = Json.mapper().readTree(list.body()).path("error");
        assertEquals("https_required", error.path("code").asText());
        assertFalse(list.body().contains("\"workspaces\""), "nothing is served over plain HTTP");

        var create = plain(plainBase + "/workspaces", "POST", token);
        assertEquals(308, create.statusCode());
        assertFalse(trusted().get("/workspaces?limit=100").toString().contains("over-plain-http"), "nor done");

        var cliPlain = cli(Map.of("HEARTH_URL", plainBase, "HEARTH_CA_FILE", ca.caFile.toString()), "workspaces", "list");
        assertEquals(1, cliPlain.code());
        assertTrue(cliPlain.err().contains("HTTPS only"), cliPlain.err());
    }

    @Test
    void theRedirectListenerSendsPlainHttpToHttps() throws Exception {
        var api = plain("http://127.0.0.1:" + redirectPort + "/v1/me?x=1", "GET", null);
        assertEquals(308, api.statusCode());
        assertEquals("https://127.0.0.1:" + port() + "/v1/me?x=1", api.headers().firstValue("Location").orElse(""));
        assertEquals("https_required", Json.mapper().readTree(api.body()).path("error").path("code").asText());
    }

    @Test
    void aRenewedCertificateIsServedWithoutARestart() throws Exception {
        var client = trusted();
        client.get("/me");
        BigInteger before = ca.served(port(), "localhost");
        BigInteger renewed = ca.issue(files, "localhost", "127.0.0.1").getSerialNumber();
        BigInteger seen = before;
        for (int i = 0; i < 200 && !seen.equals(renewed); i++) {
            assertEquals(200, client.send("GET", "/me", null, Map.of()).status(), "the client keeps working");
            Thread.sleep(100);
            seen = ca.served(port(), "localhost");
        }
        assertEquals(renewed, seen, "new connections see the renewed certificate");

        // A renewal caught half-way (a new certificate, the old key) is not served; the last good pair is.
        var next = new TlsFiles(certs.resolve("next.pem"), certs.resolve("next-key.pem"));
        BigInteger third = ca.issue(next, "localhost", "127.0.0.1").getSerialNumber();
        Files.copy(next.certificate(), files.certificate(), StandardCopyOption.REPLACE_EXISTING);
        Thread.sleep(3000);
        assertEquals(renewed, ca.served(port(), "localhost"), "a mismatched pair is refused");
        assertEquals(200, client.send("GET", "/me", null, Map.of()).status());
        Files.copy(next.key(), files.key(), StandardCopyOption.REPLACE_EXISTING);
        seen = Eventually.eventually(Duration.ofSeconds(20), () -> ca.served(port(), "localhost"), third::equals);
        assertEquals(third, seen, "the completed pair is served");
    }

    @Test
    void aSelfSignedServerHandsClientsItsCa() throws Exception {
        try (var selfSigned = TestServer.start(c -> c.withTls(new TlsSettings(Optional.empty(), Optional.empty(), true,
                Optional.empty())))) {
            Path caPem = selfSigned.dataDir.resolve("tls/ca.pem");
            assertTrue(Files.exists(caPem));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    selfSigned.dataDir.resolve("tls/ca-key.pem"))), "the CA's key is the owner's only");
            var client = new HearthClient(selfSigned.baseUrl(), KeyFileTokens.read(selfSigned.dataDir.resolve(
                    "admin-key.json")), Optional.of(Trust.of(caPem)));
            assertEquals(200, client.send("GET", "/me", null, Map.of()).status());
            String fingerprint = TestCa.fingerprint(caPem);
            selfSigned.restart();
            assertEquals(fingerprint, TestCa.fingerprint(caPem), "a restart keeps the CA");
            assertEquals(200, client.send("GET", "/me", null, Map.of()).status(), "and clients keep trusting it");
        }
    }
}

package dev.hearth.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.support.Eventually;
import dev.hearth.cli.Cli;
import dev.hearth.client.HearthClient;
import dev.hearth.client.KeyFileTokens;
import dev.hearth.client.Trust;
import dev.hearth.fs.Disk;
import dev.hearth.server.Config;
import dev.hearth.server.router.RouterSettings;
import dev.hearth.server.tls.TlsFiles;
import dev.hearth.server.tls.TlsSettings;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.RawWebSocket;
import dev.hearth.support.TestComputers;
import dev.hearth.support.TestImages;
import dev.hearth.support.TestServer;
import dev.hearth.support.TypedInput;
import java.time.Duration;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Computers behind HTTPS: the router with a wildcard certificate (pages and WebSockets), and the
 * CLI's streamed exec and interactive terminal over the API's TLS.
 */
@HearthServerTest(config = "withTls", computers = true)
class TlsComputersTest {
    private static final String DOMAIN = "hearth.localhost";

    @Injected
    private TestServer server;
    private final Path certs;
    private final TestCa ca;
    private final TlsFiles files;
    private HearthClient admin;
    private String wsName;
    private JsonNode web;

    TlsComputersTest() throws Exception {
        certs = Files.createTempDirectory("hearth-tls");
        ca = new TestCa(certs, "Test CA");
        files = new TlsFiles(certs.resolve("server.pem"), certs.resolve("server-key.pem"));
        // curl (like browsers) takes a wildcard only with two labels after it: *.hearth.localhost, not *.localhost.
        ca.issue(files, "localhost", "127.0.0.1", DOMAIN, "*." + DOMAIN);
    }

    UnaryOperator<Config> withTls() {
        return c -> c.withRouter(new RouterSettings("127.0.0.1", 0, DOMAIN, Optional.empty()))
                .withTls(new TlsSettings(Optional.of(files), Optional.of(files), false, Optional.empty()));
    }

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        admin = new HearthClient(server.baseUrl(), KeyFileTokens.read(server.dataDir.resolve("admin-key.json")),
                Optional.of(Trust.of(ca.caFile)));
        var workspace = TestServer.workspace(admin);
        wsName = workspace.path("name").asText();
        String image = TestImages.web(tmp);
        TestComputers.pull(admin, workspace.path("id").asText(), image);
        web = TestComputers.create(admin, workspace.path("id").asText(), "web", image, Map.of("ports",
                List.of(Map.of("target", 8080, "published", 80), Map.of("target", 9000))));
    }

    @AfterAll
    void removeCertificates() throws Exception {
        admin.delete("/computers/" + web.path("id").asText());
        Disk.deleteTree(certs);
    }

    @Test
    void theRouterServesComputersOverHttpsAndRedirectsPlainHttp() throws Exception {
        String url = web.path("url").asText();
        assertTrue(url.startsWith("https://web--" + wsName + "." + DOMAIN + ":"), url);
        String page = Eventually.eventually(Duration.ofSeconds(10), () -> curl("--cacert", ca.caFile.toString(), url + "/"),
                p -> p.endsWith("200"));
        assertEquals("hello from the computer\n\n200", page);
        String echo = curl("--cacert", ca.caFile.toString(), url + "/cgi-bin/echo");
        assertTrue(echo.contains("xfproto=https"), echo);

        String plain = curl(url.replace("https://", "http://") + "/", "-D", "-");
        assertTrue(plain.startsWith("HTTP/1.1 308"), plain);
        assertTrue(plain.contains("Location: " + url + "/"), plain);
        assertTrue(!plain.contains("hello from the computer"), plain);
        String stranger = curl("--cacert", new TestCa(certs, "Stranger CA").caFile.toString(), url + "/");
        assertTrue(stranger.endsWith("000"), "curl refuses a certificate of another CA: " + stranger);
    }

    @Test
    void webSocketsAreRelayedOverTls() throws Exception {
        var url = URI.create(web.path("ports").get(1).path("url").asText());
        try (var tcp = new Socket("127.0.0.1", url.getPort());
             var socket = (SSLSocket) Trust.of(ca.caFile).getSocketFactory().createSocket(tcp, url.getHost(), url.getPort(), true)) {
            var parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            RawWebSocket.upgrade(out, url.getHost() + ":" + url.getPort(), "/chat");
            var in = new DataInputStream(socket.getInputStream());
            String head = RawWebSocket.readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 101"), head);
            assertEquals("hello", RawWebSocket.readText(in));
            RawWebSocket.sendText(out, "over tls");
            assertEquals("echo:over tls", RawWebSocket.readText(in));
        }
    }

    @Test
    void theCliStreamsExecAndOpensATerminalOverTls() {
        var env = Map.of("HEARTH_URL", server.baseUrl(), "HEARTH_CA_FILE", ca.caFile.toString(),
                "HEARTH_KEY_FILE", server.dataDir.resolve("admin-key.json").toString());
        var streamed = cli(env, new ByteArrayInputStream(new byte[0]), "exec", "-w", wsName, "web", "--", "sh", "-c",
                "echo streamed; echo oops >&2; exit 3");
        assertEquals(3, streamed.code(), streamed.err());
        assertEquals("streamed\n", streamed.out());
        assertTrue(streamed.err().contains("oops"), streamed.err());

        var shell = cli(env, TypedInput.afterASecond("echo tty-$((6*7)); exit 5\n"), "exec", "-it", "-w", wsName, "web", "--",
                "/bin/sh");
        assertEquals(5, shell.code(), shell.err());
        assertTrue(shell.out().contains("tty-42"), shell.out());
    }

    // ---- helpers

    record Run(int code, String out, String err) {
    }

    private Run cli(Map<String, String> env, InputStream in, String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Cli.run(args, new Cli.Context(env, in, new PrintStream(out, true), new PrintStream(err, true),
                certs.resolve("cli")));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** curl's body and status code ("000": no answer, e.g. a certificate refused). */
    private static String curl(String... args) throws Exception {
        var command = new ArrayList<>(List.of("curl", "-s", "-m", "30", "-w", "\n%{http_code}"));
        command.addAll(List.of(args));
        var p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out.replace("\r\n", "\n");
    }
}

package dev.hearth.console;

import static dev.hearth.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.client.HearthClient;
import dev.hearth.support.Browser;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;

/**
 * The web console in Debian's Chromium against a real server: what a person sees after each step,
 * with screenshots in app/target/console-screenshots. Sign-in is the real email flow (the code read
 * from the outbox), and everything the pages do goes through the public API with the console's cookie.
 */
@HearthServerTest(computers = true, databases = true)
class ConsoleTest {
    @Injected
    private TestServer server;
    @Injected
    private HearthClient admin;
    private String ws;
    private Browser browser;
    private String shot;

    @BeforeAll
    void workspace() {
        assertTrue(Browser.available(), "Debian's chromium and chromium-driver (./run-tests installs them)");
        ws = TestServer.workspace(admin).path("id").asText();
    }

    @BeforeEach
    void openBrowser(TestInfo test) {
        browser = new Browser();
        shot = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void closeBrowser() {
        browser.screenshot(shot + "-last");
        browser.close();
    }

    private String root() {
        return server.baseUrl().replaceFirst("/v1$", "") + "/";
    }

    /** Signs {@code email} in through the console's form, the code read from the outbox, as {@code role} in the workspace. */
    private void signIn(String email, String role) {
        admin.create("/workspaces/" + ws + "/access", Map.of("email", email, "role", role));
        browser.open(root());
        browser.type(By.id("email"), email);
        browser.click(By.id("email-submit"));
        browser.await(By.id("code")); // the mail is out
        browser.type(By.id("code"), eventually(Duration.ofSeconds(10), () -> {
            try {
                return server.lastCode(email);
            } catch (AssertionError | UncheckedIOException notYet) {
                return null; // being written
            }
        }, code -> code != null));
        browser.screenshot(shot + "-signin");
        browser.click(By.id("email-submit"));
        browser.awaitText(By.id("who"), email);
    }

    @Test
    void aPersonSignsInByEmailMakesAComputerAndTypesInItsTerminal() throws Exception {
        signIn("ada@example.com", "editor");
        browser.driver().navigate().refresh();
        browser.awaitText(By.id("who"), "ada@example.com"); // the cookie outlives a reload
        admin.create("/workspaces/" + ws + "/variables", Map.of("name", "console-token", "value", "t0k3n"));
        browser.click(By.id("new-computer"));
        browser.type(By.id("name"), "console-box");
        browser.type(By.id("secrets"), "TOKEN=console-token");
        browser.type(By.id("deny-out"), "198.51.100.7");
        browser.click(By.id("create"));
        browser.awaitText(By.id("computer-state"), "ready");
        String facts = browser.awaitText(By.cssSelector(".facts"), "TOKEN (secret)");
        assertTrue(facts.contains("never 198.51.100.7"), facts);
        browser.screenshot(shot + "-computer");

        browser.click(By.id("tab-terminal"));
        browser.await(By.cssSelector("#terminal .xterm-rows"));
        browser.awaitText(By.id("terminal"), "#");
        browser.click(By.id("terminal")); // focuses xterm's input, as a person's click does
        browser.driver().switchTo().activeElement().sendKeys("echo h''i $TOKEN" + Keys.ENTER);
        String screen = browser.awaitText(By.id("terminal"), "\nhi t0k3n");
        assertTrue(screen.contains("echo h''i"), screen);
        browser.screenshot(shot + "-terminal");

        browser.click(By.id("tab-files"));
        Path upload = Files.writeString(Files.createTempDirectory("console").resolve("notes.txt"), "hello from the console\n");
        browser.await(By.id("dir"));
        browser.driver().findElement(By.id("upload")).sendKeys(upload.toString());
        browser.awaitText(By.id("files"), "notes.txt");
        browser.screenshot(shot + "-files");
        String id = browser.driver().getCurrentUrl().replaceAll(".*#/c/([^/]+).*", "$1");
        assertEquals("hello from the console\n", new String(admin.download("/computers/" + id + "/files?path=/data/notes.txt").readAllBytes()));

        browser.click(By.cssSelector("[data-action=sleep]"));
        browser.awaitText(By.id("computer-state"), "sleeping");
        browser.click(By.cssSelector("[data-action=wake]"));
        browser.awaitText(By.id("computer-state"), "ready");
        browser.screenshot(shot + "-awake");

        browser.click(By.id("tab-metrics"));
        browser.await(By.cssSelector("#chart-memory canvas")); // a sample every 5 s while awake
        browser.awaitText(By.id("chart-cpu"), "CPU");
        browser.screenshot(shot + "-metrics");

        browser.click(By.id("tab-checkpoints"));
        browser.type(By.id("checkpoint-name"), "v1");
        browser.click(By.id("checkpoint-submit"));
        browser.awaitText(By.cssSelector("tr[data-name=v1] .checkpoint-state"), "ready");
        browser.click(By.cssSelector("tr[data-name=v1] [data-action=fork]"));
        browser.answer("console-fork");
        browser.awaitText(By.tagName("h2"), "console-fork");
        browser.awaitText(By.id("computer-state"), "ready");
        browser.screenshot(shot + "-fork");
        String fork = browser.driver().getCurrentUrl().replaceAll(".*#/c/([^/]+).*", "$1");
        assertEquals("hello from the console\n", new String(admin.download("/computers/" + fork
                + "/files?path=/data/notes.txt").readAllBytes()), "the fork has the checkpoint's /data");
        admin.delete("/computers/" + fork);

        browser.click(By.id("nav-operations"));
        String operations = browser.awaitText(By.id("operations"), "checkpoint.create");
        assertTrue(operations.contains("succeeded"), operations);
        browser.screenshot(shot + "-operations");

        String cookie = browser.driver().manage().getCookieNamed("hearth_console").getValue();
        assertTrue(browser.driver().manage().getCookieNamed("hearth_console").isHttpOnly());
        assertEquals(200, withCookie("GET", "/me", cookie));
        browser.click(By.id("logout"));
        browser.await(By.id("email"));
        assertEquals(401, withCookie("GET", "/me", cookie), "logout ends the sign-in on the server");
    }

    @Test
    void databasesInvitationsAndApiKeys() {
        signIn("grace@example.com", "admin");
        browser.click(By.id("nav-databases"));
        browser.type(By.id("database-name"), "ledger");
        browser.click(By.id("create-database-submit"));
        browser.click(By.linkText("ledger"));
        String uri = browser.awaitText(By.cssSelector("[data-copy=uri]"), "postgresql://");
        assertTrue(uri.contains("ledger"), uri);
        browser.click(By.cssSelector("[data-action=copy-uri]"));
        browser.awaitText(By.cssSelector("[data-action=copy-uri]"), "Copied");
        browser.type(By.id("sql"), "select 1 as one, null as nothing");
        browser.click(By.id("sql-run"));
        String result = browser.awaitText(By.id("sql-result"), "SELECT: 1 row", Duration.ofSeconds(120)); // its first wake
        assertTrue(result.contains("one") && result.contains("NULL"), result);
        browser.type(By.id("sql"), "create table notes (line text); insert into notes values ('x')");
        browser.click(By.id("sql-run"));
        browser.awaitText(By.cssSelector(".error"), "one statement at a time");
        browser.type(By.id("sql"), "create table notes (line text)");
        browser.click(By.id("sql-run"));
        browser.awaitText(By.id("sql-result"), "CREATE");
        browser.type(By.id("query-name"), "make notes");
        browser.click(By.id("query-save"));
        browser.awaitText(By.id("saved-query"), "make notes");
        browser.driver().navigate().refresh();
        browser.await(By.id("saved-query"));
        browser.click(By.xpath("//select[@id='saved-query']/option[text()='make notes']"));
        assertEquals("create table notes (line text)", eventually(Duration.ofSeconds(10),
                () -> browser.await(By.id("sql")).getDomProperty("value"), v -> v.startsWith("create")),
                "a saved query comes back into the editor after a reload");
        browser.screenshot(shot + "-database");

        browser.click(By.id("dtab-metrics"));
        browser.await(By.cssSelector("#chart-connections canvas")); // a sample every 10 s while awake
        browser.awaitText(By.id("chart-transactions"), "Transactions");
        browser.screenshot(shot + "-database-metrics");
        browser.click(By.id("dtab-branches"));
        browser.type(By.id("database-checkpoint-name"), "before");
        browser.click(By.id("database-checkpoint-submit"));
        browser.awaitText(By.cssSelector("tr[data-name=before] .checkpoint-state"), "ready");
        browser.click(By.cssSelector("tr[data-name=before] [data-action=branch]"));
        browser.answer("ledger-before");
        browser.awaitText(By.tagName("h2"), "ledger-before");
        browser.click(By.id("dtab-branches"));
        browser.awaitText(By.cssSelector("#branch-tree li[data-name=ledger] li[data-name=ledger-before]"), "ledger-before");
        openFromTree("ledger");
        browser.awaitText(By.id("history"), "History from");
        browser.click(By.id("travel-at"));
        browser.awaitText(By.id("time-travel"), "postgresql://");
        browser.click(By.id("travel-end"));
        eventually(Duration.ofSeconds(10), () -> browser.driver().findElements(By.id("time-travel")).size(), n -> n == 0);
        browser.type(By.id("branch-at-name"), "ledger-now");
        browser.click(By.id("branch-at-submit"));
        browser.awaitText(By.tagName("h2"), "ledger-now");
        browser.awaitText(By.id("database-state"), "ready");
        browser.click(By.id("dtab-branches"));
        openFromTree("ledger");
        browser.click(By.id("dtab-branches"));
        browser.click(By.id("restore-at"));
        browser.confirm();
        browser.awaitText(By.tagName("h2"), "ledger-before-", Duration.ofSeconds(60));
        browser.awaitText(By.cssSelector("#branch-tree li[data-name=ledger]"), "ledger-before-");
        browser.screenshot(shot + "-restored");
        browser.screenshot(shot + "-branches");

        browser.click(By.id("nav-settings"));
        browser.type(By.id("variable-name"), "api-token");
        browser.type(By.id("variable-value"), "s3cret");
        browser.click(By.id("variable-submit"));
        String listed = browser.awaitText(By.cssSelector("tr[data-name=api-token]"), "api-token");
        assertFalse(listed.contains("s3cret"), "a value is shown only when asked: " + listed);
        browser.click(By.cssSelector("tr[data-name=api-token] [data-action=reveal]"));
        browser.awaitText(By.cssSelector("tr[data-name=api-token] .value"), "s3cret");
        browser.type(By.id("invite-email"), "bob@example.com");
        browser.click(By.id("invite-submit"));
        browser.awaitText(By.id("invitations"), "bob@example.com");
        browser.type(By.id("key-name"), "deploy");
        browser.click(By.id("create-key-submit"));
        String secret = browser.awaitText(By.id("new-secret"), "hk_");
        assertEquals(200, withBearer("/me", secret), "the key shown once works");
        browser.click(By.cssSelector("tr[data-name=deploy] [data-action=revoke-key]"));
        browser.confirm();
        browser.awaitText(By.cssSelector("tr[data-name=deploy] .key-state"), "revoked");
        admin.create("/workspaces/" + ws + "/access", Map.of("email", "moved@example.com", "role", "viewer"));
        browser.driver().navigate().refresh();
        browser.click(By.xpath("//tr[@data-name='moved@example.com']//select/option[text()='editor']"));
        eventually(Duration.ofSeconds(10), () -> role("moved@example.com"), "editor"::equals);
        assertEquals("editor", role("moved@example.com"), "an admin changes a member's role");
        browser.click(By.cssSelector("tr[data-name='moved@example.com'] [data-action=remove-member]"));
        browser.confirm();
        eventually(Duration.ofSeconds(10), () -> role("moved@example.com"), r -> r == null);
        assertEquals(null, role("moved@example.com"), "an admin removes a member");
        browser.screenshot(shot + "-settings");

        browser.click(By.xpath("//select[@id='workspace']/option[text()='New workspace…']"));
        browser.answer(TestServer.uniqueName("made-here"));
        browser.awaitText(By.id("workspace"), "made-here");
        assertTrue(browser.driver().getCurrentUrl().endsWith("/computers"), browser.driver().getCurrentUrl());
        assertEquals(401, withBearer("/me", secret), "a revoked key is refused at once");
    }

    @Test
    void aViewerSeesNoDestructiveButtonsAndAForgedRequestIsRefused() throws Exception {
        var made = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "looked-at", "image", "hearth/busybox"));
        String id = made.path("computer").path("id").asText();
        admin.post("/computers/" + id + "/processes", Map.of("command", java.util.List.of("sh", "-c",
                "echo from-the-process; sleep 600"), "tag", "talker"));
        signIn("vic@example.com", "viewer");
        browser.open(root() + "#/c/" + id + "/processes");
        browser.click(By.cssSelector("tr[data-name=talker] [data-action=output]"));
        browser.awaitText(By.id("process-output"), "from-the-process"); // a viewer reads, followed live
        browser.screenshot(shot + "-processes");
        browser.open(root() + "#/c/" + id);
        browser.awaitText(By.id("computer-state"), "ready");
        assertTrue(browser.all(By.cssSelector("[data-action=delete], [data-action=sleep]")).isEmpty());
        assertTrue(browser.find(By.id("new-computer")).isEmpty());
        browser.screenshot(shot + "-viewer");
        // From the viewer's own page, with its cookie: without the console's header (as a forged
        // cross-site form would be) and with it (a role too low).
        assertTrue(browser.fetch("POST", "/v1/computers/" + id + "/sleep", "{\"Content-Type\": \"application/json\"}")
                .startsWith("403 "), "no X-Hearth-Console header");
        String asViewer = browser.fetch("POST", "/v1/computers/" + id + "/sleep",
                "{\"Content-Type\": \"application/json\", \"X-Hearth-Console\": \"1\"}");
        assertTrue(asViewer.startsWith("403 ") && asViewer.contains("forbidden"), asViewer);
        assertEquals("ready", admin.get("/computers/" + id).path("computer").path("state").asText());
        // The SQL editor is the viewer's too, in a transaction that cannot write.
        String db = admin.create("/workspaces/" + ws + "/databases", Map.of("name", "viewed")).path("database").path("id")
                .asText();
        browser.open(root() + "#/d/" + db);
        browser.type(By.id("sql"), "create table written (x int)");
        browser.click(By.id("sql-run"));
        // The database's first wake (a new cluster) comes first: slow on a loaded machine.
        browser.awaitText(By.cssSelector(".error"), "read-only transaction", Duration.ofSeconds(120));
        browser.type(By.id("sql"), "select current_user");
        browser.click(By.id("sql-run"));
        browser.awaitText(By.id("sql-result"), "viewed");
        assertTrue(browser.all(By.cssSelector("[data-action=reset], [data-action=delete]")).isEmpty());
        assertEquals("********", browser.text(By.cssSelector("[data-copy=password]")));
        admin.delete("/databases/" + db);
        admin.delete("/computers/" + id);
    }

    @Test
    void badInputShowsTheApiErrorByItsFieldAndMakesNothing() {
        signIn("eve@example.com", "editor");
        browser.click(By.id("new-computer"));
        browser.type(By.id("name"), "Not_A_Name");
        browser.click(By.id("create"));
        String error = browser.await(By.cssSelector(".field-error[data-field=name]")).getText();
        assertFalse(error.isEmpty(), "the name's error is shown by its field");
        browser.awaitText(By.cssSelector(".error"), "name");
        browser.screenshot(shot + "-error");
        assertTrue(admin.get("/workspaces/" + ws + "/computers").path("computers").findValuesAsText("name").stream()
                .noneMatch(n -> n.equalsIgnoreCase("Not_A_Name")));
    }

    @Test
    void keysGoToPagesAndSayWhatTheyAre() {
        signIn("kim@example.com", "viewer");
        var page = browser.await(By.tagName("body"));
        page.sendKeys("gd");
        browser.awaitText(By.tagName("h2"), "Databases");
        assertTrue(browser.driver().getCurrentUrl().endsWith("/databases"), browser.driver().getCurrentUrl());
        page.sendKeys("go");
        browser.awaitText(By.tagName("h2"), "Operations");
        page.sendKeys("?");
        browser.awaitText(By.id("keys-help"), "Computers");
        browser.screenshot(shot + "-help");
        page.sendKeys(Keys.ESCAPE);
        page.sendKeys("gc");
        browser.awaitText(By.tagName("h2"), "Computers");
        page.sendKeys("/");
        assertEquals("search", browser.driver().switchTo().activeElement().getDomAttribute("id"), "/ focuses the search");
        browser.driver().switchTo().activeElement().sendKeys("gd");
        assertTrue(browser.driver().getCurrentUrl().endsWith("/computers"), "keys typed in a field are the field's");
        // The search asks the server: name or image, any letter case.
        String id = dev.hearth.support.TestComputers.create(admin, ws, "searched-for", "hearth/busybox", Map.of())
                .path("id").asText();
        browser.type(By.id("search"), "SEARCHED-F");
        browser.await(By.cssSelector("#computers tr[data-name=searched-for]"));
        browser.type(By.id("search"), "no-such-computer");
        browser.awaitText(By.tagName("section"), "No computer matches.");
        admin.delete("/computers/" + id);
    }

    @Test
    void thePageForbidsFramingAndForeignScripts() throws Exception {
        var page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(root())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        String csp = page.headers().firstValue("content-security-policy").orElse("");
        assertTrue(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), csp);
        assertEquals("DENY", page.headers().firstValue("x-frame-options").orElse(""));
        assertFalse(page.body().contains("<script>"), "no inline script");
    }

    @Test
    void anApiKeySignInSetsAStrictCookieThatEndsWithTheKey() throws Exception {
        var made = admin.create("/workspaces/" + ws + "/api_keys", Map.of("name", TestServer.uniqueName("k")));
        var signIn = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/auth/console"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"api_key\": \"" + made.path("secret").asText() + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, signIn.statusCode(), signIn.body());
        String setCookie = signIn.headers().firstValue("set-cookie").orElse("");
        assertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie);
        String cookie = setCookie.replaceAll("^hearth_console=([^;]+);.*$", "$1");
        assertEquals(200, withCookie("GET", "/me", cookie));
        assertEquals(403, withCookie("POST", "/workspaces/" + ws + "/api_keys", cookie), "no console header");
        admin.delete("/workspaces/" + ws + "/api_keys/" + made.path("api_key").path("id").asText());
        assertEquals(401, withCookie("GET", "/me", cookie), "the cookie ends with its key");
    }

    @Test
    void aKeyFileSignsInInTheBrowserAndTheCookieEndsWithTheKey() throws Exception {
        String name = TestServer.uniqueName("robot");
        var made = admin.create("/workspaces/" + ws + "/access", Map.of("name", name, "role", "viewer"));
        String principal = made.path("access").path("principal").path("id").asText();
        Path file = Files.createTempDirectory("console").resolve("robot-key.json");
        Files.writeString(file, made.path("key_file").toString());
        browser.open(root());
        browser.click(By.xpath("//summary[text()='Sign in with a key file']"));
        browser.driver().findElement(By.id("key-file")).sendKeys(file.toString());
        browser.click(By.id("key-file-submit"));
        browser.awaitText(By.id("who"), name);
        browser.screenshot(shot + "-signed-in");
        String cookie = browser.driver().manage().getCookieNamed("hearth_console").getValue();
        assertEquals(200, withCookie("GET", "/me", cookie));
        admin.post("/workspaces/" + ws + "/access/" + principal + "/revoke_key", Map.of());
        assertEquals(401, withCookie("GET", "/me", cookie), "the cookie ends with its key");

        browser.driver().manage().deleteAllCookies();
        browser.open(root());
        Files.writeString(file, "{\"subject\": \"nobody\"}");
        browser.click(By.xpath("//summary[text()='Sign in with a key file']"));
        browser.driver().findElement(By.id("key-file")).sendKeys(file.toString());
        browser.click(By.id("key-file-submit"));
        browser.awaitText(By.cssSelector(".error"), "not a key file");
    }

    /** The member's role in the test's workspace, or null for none. */
    private String role(String email) {
        return admin.get("/workspaces/" + ws + "/access").path("access").valueStream()
                .filter(m -> m.path("principal").path("name").asText().equals(email))
                .map(m -> m.path("role").asText()).findFirst().orElse(null);
    }

    private int withCookie(String method, String path, String cookie) {
        return status(method, path, "Cookie", "hearth_console=" + cookie);
    }

    private int withBearer(String path, String secret) {
        return status("GET", path, "Authorization", "Bearer " + secret);
    }

    /** The status of a request with one header, sent as a script would: not by the page. */
    private int status(String method, String path, String header, String value) {
        try {
            var request = HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).header(header, value)
                    .method(method, HttpRequest.BodyPublishers.noBody()).build();
            return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @AfterAll
    void done() {
        assertTrue(Files.isDirectory(Browser.SCREENSHOTS));
    }

    /**
     * Opens a database from the branch tree and waits for its page: every database page has the same
     * buttons, so a click before the page changed would act on the one just left.
     */
    private void openFromTree(String name) {
        browser.click(By.linkText(name));
        String shown = eventually(Duration.ofSeconds(30), () -> browser.text(By.tagName("h2")),
                t -> t.startsWith(name + " ") || t.equals(name));
        assertTrue(shown.startsWith(name + " ") || shown.equals(name), "the page of " + name + " opens: " + shown);
    }
}

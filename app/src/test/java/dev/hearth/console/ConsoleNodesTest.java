package dev.hearth.console;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.support.Browser;
import dev.hearth.support.HearthServerTest;
import dev.hearth.support.Injected;
import dev.hearth.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The console's Nodes page, in Debian's Chromium: the server's operator (the admin principal made
 * at first start, signed in with its key file) sees the cluster's nodes; a workspace's admin is not
 * shown the page, and the API refuses it the nodes anyway (OperatorTest).
 */
@HearthServerTest
class ConsoleNodesTest {
    @Injected
    private TestServer server;
    private Browser browser;

    @BeforeEach
    void openBrowser() {
        assertTrue(Browser.available(), "Debian's chromium and chromium-driver (./run-tests installs them)");
        browser = new Browser();
    }

    @AfterEach
    void closeBrowser() {
        browser.close();
    }

    private void signInWith(Path keyFile, String name) {
        browser.open(server.baseUrl().replaceFirst("/v1$", "") + "/");
        browser.click(By.xpath("//summary[text()='Sign in with a key file']"));
        browser.driver().findElement(By.id("key-file")).sendKeys(keyFile.toString());
        browser.click(By.id("key-file-submit"));
        browser.awaitText(By.id("who"), name);
    }

    @Test
    void theOperatorWithoutAWorkspaceLandsOnTheNodes() {
        signInWith(server.config().dataDir().resolve("admin-key.json"), "admin");
        browser.awaitText(By.cssSelector("#nodes tr[data-name='local']"), "local");
        browser.awaitText(By.cssSelector("#nodes tr[data-name='local'] .state"), "up");
        browser.screenshot("nodes-operator");
        assertTrue(browser.driver().getCurrentUrl().endsWith("#/nodes"), browser.driver().getCurrentUrl());
        browser.await(By.id("nav-nodes"));
    }

    @Test
    void aWorkspaceAdminSeesNoNodesLink() throws Exception {
        var owner = server.emailUser("owner@example.com"); // not the operator, who must stay without a workspace
        String ws = TestServer.workspace(owner).path("id").asText();
        String name = TestServer.uniqueName("owner");
        var made = owner.create("/workspaces/" + ws + "/access", Map.of("name", name, "role", "admin"));
        Path file = Files.createTempDirectory("console").resolve("owner-key.json");
        Files.writeString(file, made.path("key_file").toString());
        signInWith(file, name);
        browser.await(By.id("nav-computers"));
        assertTrue(browser.driver().findElements(By.id("nav-nodes")).isEmpty(), "no Nodes link for a workspace admin");
        browser.open(server.baseUrl().replaceFirst("/v1$", "") + "/#/nodes");
        browser.awaitText(By.cssSelector(".error"), "operator");
        browser.screenshot("nodes-refused");
    }
}

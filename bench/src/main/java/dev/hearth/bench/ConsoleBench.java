package dev.hearth.bench;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The web console in Debian's headless Chromium, against {@code hearth serve} on this machine, each
 * figure beside its floor measured in the same run: first load to interactive (the page's own
 * {@code hearth-interactive} mark) beside loading a bare JSON document; the gzipped script's size;
 * a list of 1,000 computers from its data's arrival to the screen beside the same rows written as
 * one innerHTML; a terminal keystroke to its echo on screen beside exec's own round trip through
 * the API. Needs root, runsc, chromium and chromium-driver. Arguments: {@code [rounds=10]}.
 */
public final class ConsoleBench {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        Path dataDir = Files.createTempDirectory("hearth-console-bench").resolve("data");
        var service = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver")).build();
        var options = new ChromeOptions().setBinary("/usr/bin/chromium")
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900");
        try (var hearth = ServedHearth.start(dataDir)) {
            var admin = hearth.admin();
            String ws = admin.create("/workspaces", Map.of("name", "bench")).path("workspace").path("id").asText();
            String key = admin.create("/workspaces/" + ws + "/api_keys", Map.of("name", "console")).path("secret").asText();
            String id = admin.create("/workspaces/" + ws + "/computers", Map.of("name", "c", "image", "hearth/busybox"))
                    .path("computer").path("id").asText();
            String root = hearth.baseUrl().replaceFirst("/v1$", "") + "/";
            var driver = new ChromeDriver(service, options);
            try {
                driver.get(root);
                driver.executeAsyncScript("const done = arguments[arguments.length - 1]; fetch('/v1/auth/console', "
                        + "{method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({api_key: "
                        + "arguments[0]})}).then(() => done())", key);
                System.out.println("| step | median | floor, same run | ratio |");
                System.out.println("|---|---|---|---|");
                var load = new ArrayList<Double>();
                var floor = new ArrayList<Double>();
                for (int i = 0; i < rounds + 2; i++) {
                    driver.get(hearth.baseUrl() + "/health");
                    double bare = ((Number) driver.executeScript("return performance.getEntriesByType('navigation')[0]"
                            + ".loadEventEnd")).doubleValue();
                    driver.get(root + "?r=" + i);
                    double interactive = mark(driver, "hearth-interactive");
                    if (i >= 2) {
                        floor.add(bare);
                        load.add(interactive);
                    }
                }
                row("first load to interactive (ms)", load, floor, "a bare JSON document's load");
                long js = gzippedScript(root);
                System.out.printf("| gzipped script (kB) | %.1f | | target <= 300 |%n", js / 1024.0);
                list(driver, root, ws, rounds);
                terminal(driver, root, id, admin, rounds);
            } finally {
                driver.quit();
            }
            admin.delete("/computers/" + id);
        } finally {
            ComputerBench.TestCleanup.removeAll(dataDir);
        }
        System.out.printf("%nload average %s%n", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    private static double mark(ChromeDriver driver, String name) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            Object at = driver.executeScript("const m = performance.getEntriesByName(arguments[0]); "
                    + "return m.length ? m[m.length - 1].startTime : null", name);
            if (at != null) {
                return ((Number) at).doubleValue();
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("the page never marked " + name);
    }

    /** The list page fed 1,000 computers (fetch answered in the page), data to screen; then the same rows as innerHTML. */
    private static void list(ChromeDriver driver, String root, String ws, int rounds) throws InterruptedException {
        var shown = new ArrayList<Double>();
        var floor = new ArrayList<Double>();
        for (int i = 0; i < rounds; i++) {
            driver.get(root + "#/w/" + ws + "/databases");
            driver.findElement(By.id("nav-computers"));
            driver.executeScript("""
                    const real = window.fetch
                    const computers = Array.from({length: 1000}, (_, n) => ({id: 'c' + n, name: 'computer-' + n,
                      workspace: arguments[0], state: n % 3 ? 'ready' : 'sleeping', sleep_mode: n % 3 ? null : 'warm',
                      image: 'hearth/busybox', resources: {cpus: 1, memory_mb: 512}, url: 'http://computer-' + n + '.localhost',
                      updated_at: new Date().toISOString(), last_active_at: null}))
                    window.fetch = (url, init) => String(url).includes('/computers?')
                      ? Promise.resolve(new Response(JSON.stringify({computers, has_more: false, next_cursor: null}),
                          {headers: {'Content-Type': 'application/json'}}))
                      : real(url, init)
                    performance.clearMarks()
                    location.hash = '#/w/' + arguments[0] + '/computers'""", ws);
            double rendered = mark(driver, "computers-rendered");
            double data = mark(driver, "computers-data");
            shown.add(rendered - data);
            floor.add(((Number) driver.executeScript("""
                    const t0 = performance.now()
                    const rows = Array.from({length: 1000}, (_, n) => '<tr><td><a href="#">computer-' + n + '</a></td><td>ready'
                      + '</td><td>hearth/busybox</td><td>1 CPU</td><td>url</td><td>' + new Date().toLocaleString() + '</td></tr>').join('')
                    const table = document.createElement('table')
                    table.innerHTML = rows
                    document.body.appendChild(table)
                    table.getBoundingClientRect()
                    const t = performance.now() - t0
                    table.remove()
                    return t""")).doubleValue());
        }
        row("1,000 computers, data to screen (ms)", shown, floor, "the rows as one innerHTML");
    }

    /** Keystroke to echo on the terminal's screen, beside a POST exec of echo through the API from this JVM. */
    private static void terminal(ChromeDriver driver, String root, String id, dev.hearth.client.HearthClient admin,
                                 int rounds) throws Exception {
        driver.get(root + "#/c/" + id + "/terminal");
        Thread.sleep(2000);
        var echo = new ArrayList<Double>();
        var exec = new ArrayList<Double>();
        for (int i = 0; i < rounds + 3; i++) {
            char c = (char) ('a' + i % 26);
            Object ms = driver.executeAsyncScript("""
                    const done = arguments[arguments.length - 1]
                    const rows = document.querySelector('#terminal .xterm-rows')
                    const input = document.querySelector('#terminal textarea')
                    const before = rows.textContent
                    const t0 = performance.now()
                    const observer = new MutationObserver(() => {
                      if (rows.textContent.split(arguments[0]).length > before.split(arguments[0]).length) {
                        observer.disconnect(); done(performance.now() - t0)
                      }
                    })
                    observer.observe(rows, {childList: true, subtree: true, characterData: true})
                    input.dispatchEvent(new InputEvent('input', {data: arguments[0], inputType: 'insertText', bubbles: true}))
                    input.value = ''""", String.valueOf(c));
            long t0 = System.nanoTime();
            admin.post("/computers/" + id + "/exec", Map.of("command", List.of("echo", "x")));
            double api = (System.nanoTime() - t0) / 1e6;
            if (i >= 3) {
                echo.add(((Number) ms).doubleValue());
                exec.add(api);
            }
        }
        row("terminal keystroke to echo (ms)", echo, exec, "exec's own round trip (POST .../exec echo)");
    }

    private static long gzippedScript(String root) throws Exception {
        var http = HttpClient.newHttpClient();
        String page = http.send(HttpRequest.newBuilder(URI.create(root)).build(), HttpResponse.BodyHandlers.ofString()).body();
        String script = page.replaceAll("(?s).*src=\"(/console/app-[^\"]+\\.js)\".*", "$1");
        var answer = http.send(HttpRequest.newBuilder(URI.create(root.replaceFirst("/$", "") + script))
                .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
        return answer.body().length;
    }

    private static void row(String what, List<Double> measured, List<Double> floor, String floorName) {
        double m = Interleaved.percentile(measured, 50);
        double f = Interleaved.percentile(floor, 50);
        System.out.printf("| %s | %.1f | %.1f (%s) | %.2fx |%n", what, m, f, floorName, m / f);
    }
}

package dev.hearth.support;

import static dev.hearth.support.Eventually.eventually;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium, headless, driven through Debian's chromedriver (both given by path, so that
 * Selenium never looks for or downloads a browser), for the web console's tests. Waits poll what
 * a person would see; screenshots go to app/target/console-screenshots for a reviewer.
 */
public final class Browser implements AutoCloseable {
    public static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final ChromeDriver driver;

    public Browser() {
        var service = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .withLogOutput(System.err).build();
        var options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync");
        driver = new ChromeDriver(service, options);
    }

    /** Whether Debian's Chromium and chromedriver are installed (./run-tests installs them). */
    public static boolean available() {
        return Files.isExecutable(Path.of("/usr/bin/chromium")) && Files.isExecutable(Path.of("/usr/bin/chromedriver"));
    }

    public ChromeDriver driver() {
        return driver;
    }

    public void open(String url) {
        driver.get(url);
    }

    /** The element once it is shown (within 30 s), or a failure naming what was on the page. */
    public WebElement await(By by) {
        var found = eventually(PATIENCE, () -> find(by).filter(Browser::shown), Optional::isPresent);
        if (found.isEmpty()) {
            screenshot("timeout");
            throw new AssertionError("not shown: " + by + "; the page says: " + text(By.tagName("body")));
        }
        return found.get();
    }

    private static boolean shown(WebElement element) {
        try {
            return element.isDisplayed();
        } catch (StaleElementReferenceException gone) {
            return false;
        }
    }

    /** Waits until the element's text contains {@code wanted}; answers the text. */
    public String awaitText(By by, String wanted) {
        return awaitText(by, wanted, PATIENCE);
    }

    /** The same, waiting up to {@code patience} (a database's first wake, say). */
    public String awaitText(By by, String wanted, Duration patience) {
        String seen = eventually(patience, () -> text(by), text -> text.contains(wanted));
        if (!seen.contains(wanted)) {
            screenshot("timeout");
            throw new AssertionError("'" + wanted + "' not shown in " + by + "; it says: " + seen);
        }
        return seen;
    }

    public Optional<WebElement> find(By by) {
        try {
            return Optional.of(driver.findElement(by));
        } catch (NoSuchElementException | StaleElementReferenceException e) {
            return Optional.empty();
        }
    }

    public List<WebElement> all(By by) {
        return driver.findElements(by);
    }

    public String text(By by) {
        return find(by).map(e -> {
            try {
                return e.getText();
            } catch (StaleElementReferenceException gone) {
                return "";
            }
        }).orElse("");
    }

    /** Types into a field; again if the page re-rendered it meanwhile (a controlled field put its old value back). */
    public void type(By by, String text) {
        for (int attempt = 0; ; attempt++) {
            try {
                var field = await(by);
                field.clear();
                field.sendKeys(text);
                if (attempt == 2 || text.equals(field.getDomProperty("value"))) {
                    return;
                }
            } catch (StaleElementReferenceException rerendered) {
                if (attempt == 2) {
                    throw rerendered;
                }
            }
        }
    }

    /** Clicks an element; again if the page re-rendered it between finding and clicking. */
    public void click(By by) {
        for (int attempt = 0; ; attempt++) {
            try {
                await(by).click();
                return;
            } catch (StaleElementReferenceException rerendered) {
                if (attempt == 2) {
                    throw rerendered;
                }
            }
        }
    }

    /** Accepts the confirmation a destructive action asks for. */
    public void confirm() {
        answer(null);
    }

    /** Answers the question the page asks ({@code text} typed into a prompt, if given) and accepts it. */
    public void answer(String text) {
        var alert = eventually(PATIENCE, () -> {
            try {
                return Optional.of(driver.switchTo().alert());
            } catch (NoAlertPresentException notYet) {
                return Optional.<Alert>empty();
            }
        }, Optional::isPresent).orElseThrow(() -> new AssertionError("no confirmation was asked"));
        if (text != null) {
            alert.sendKeys(text);
        }
        alert.accept();
    }

    /** Runs a fetch in the page (with its cookie), answering {@code status body}. */
    public String fetch(String method, String path, String headersJson) {
        Object answer = driver.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch(arguments[1], {method: arguments[0], headers: JSON.parse(arguments[2]), credentials: 'same-origin',
                    body: arguments[0] === 'GET' ? undefined : '{}'})
                  .then(async (r) => done(r.status + ' ' + await r.text()), (e) => done('error ' + e));""",
                method, path, headersJson);
        return String.valueOf(answer);
    }

    public Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}

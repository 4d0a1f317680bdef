package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.model.CaseFile;
import io.culprit.report.internal.Refs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The report in real headless Chromium (Debian's chromium + chromium-driver): it loads with no
 * console error and no network request, charts are drawn with their points, the flame graph
 * zooms on click and highlights on search, evidence links scroll to what they cite. Screenshots
 * land in target/ as artifacts. Skips, saying why, on a machine without the browser.
 */
class ReportBrowserIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium"), DRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path OUT = Path.of("target/report-it");
    private static ChromeDriver driver;

    @TempDir static Path tmp;

    @BeforeAll
    static void browser() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
                "browser tests need Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)");
        Files.createDirectories(OUT);
        ChromeOptions o = new ChromeOptions();
        o.setBinary(CHROMIUM.toString());
        o.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + tmp.resolve("profile"), "--window-size=1300,900");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        o.setCapability("goog:loggingPrefs", logs);
        // The system driver, named explicitly: Selenium Manager would otherwise try to download one.
        driver = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build(), o);
    }

    @AfterAll
    static void close() {
        if (driver != null) driver.quit();
    }

    @Test
    void reportDrawsChartsFlamesAndLinksWithoutErrorsOrNetwork() throws Exception {
        CaseFile cf = TestCases.copy("converter-rebuild", tmp);
        TestCases.profile(cf, "cpu.collapsed", "cpu.collapsed");
        TestCases.profile(cf, "cpu-fixed.collapsed", "wall.collapsed");
        Path page = HtmlReport.write(cf, TestCases.diagnose(cf), OUT.resolve("report.html"));
        driver.get(page.toUri().toString());
        JavascriptExecutor js = driver;

        assertThat(js.executeScript("return window.culpritReport && window.culpritReport.ready")).isEqualTo(true);
        assertNoErrorsNorRequests();

        // Every chart has points, and its canvas has ink on it (Chart.js drew, not just parsed).
        @SuppressWarnings("unchecked")
        List<Long> points = (List<Long>) js.executeScript("return culpritReport.charts.map(c => c.data.datasets"
                + ".reduce((n, d) => n + c.getDatasetMeta(c.data.datasets.indexOf(d)).data.filter(p => !p.skip).length, 0))");
        assertThat(points).hasSizeGreaterThanOrEqualTo(6).allSatisfy(n -> assertThat(n).isGreaterThan(0));
        Long ink = (Long) js.executeScript("var c = document.querySelector('#chart-latency canvas');"
                + "var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, n = 0;"
                + "for (var i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n;");
        assertThat(ink).isGreaterThan(2000);

        // Flame graph: clicking a frame zooms to it (it spans the width), search highlights matches.
        WebElement frame = driver.findElements(By.cssSelector("#flame-cpu .fr")).stream()
                .filter(e -> e.getText().equals("com.example.orders.OrderService.find")).findFirst().orElseThrow();
        js.executeScript("arguments[0].scrollIntoView({block: 'center'})", frame);
        String widthBefore = frame.getAttribute("style");
        frame.click();
        assertThat(js.executeScript("return document.getElementById('flame-cpu').culpritFlame.zoomed"))
                .isEqualTo("com.example.orders.OrderService.find");
        WebElement zoomed = driver.findElements(By.cssSelector("#flame-cpu .fr:not(.anc)")).get(0);
        assertThat(zoomed.getText()).isEqualTo("com.example.orders.OrderService.find");
        assertThat(zoomed.getAttribute("style")).contains("width: 100%").isNotEqualTo(widthBefore);
        driver.findElement(By.cssSelector("#flame-cpu .reset")).click();
        driver.findElement(By.cssSelector("#flame-cpu input")).sendKeys("MapperConfig");
        assertThat(driver.findElements(By.cssSelector("#flame-cpu .fr.hit"))).hasSize(1);
        assertThat(driver.findElement(By.cssSelector("#flame-cpu .matched")).getText()).contains("68.0% of samples");
        shot(OUT.resolve("report-flames.png"));

        // Evidence links: each scrolls its target to just under the sticky navigation, not behind it.
        List<WebElement> links = driver.findElements(By.cssSelector("a.ev"));
        assertThat(links).isNotEmpty();
        for (WebElement link : List.of(links.get(0), links.get(links.size() - 1))) {
            js.executeScript("window.scrollTo(0, 0)");
            String target = link.getAttribute("href").replaceAll(".*#", "");
            link.click();
            double[] last = {Double.NaN};
            // Below the sticky navigation (not hidden under it), near the top of the viewport.
            double nav = ((Number) js.executeScript("return document.querySelector('nav').getBoundingClientRect().bottom")).doubleValue();
            new WebDriverWait(driver, Duration.ofSeconds(3)).withMessage(() -> "#" + target + " top at " + last[0] + " px, scrollY "
                    + js.executeScript("return window.scrollY")).until(d -> {
                Object y = js.executeScript("return document.getElementById(arguments[0]).getBoundingClientRect().top", target);
                last[0] = ((Number) y).doubleValue();
                return last[0] >= nav && last[0] < 200;
            });
            double top = last[0];
            assertThat(top).as("top of #" + target + " after its link").isBetween(nav, 200.0);
        }
        js.executeScript("document.getElementById('charts').scrollIntoView()");
        shot(OUT.resolve("report-charts.png"));
        js.executeScript("window.scrollTo(0, 0)");
        shot(OUT.resolve("report-verdict.png"));
        // Nothing wider than the window: long frames and refs wrap.
        assertThat(js.executeScript("return document.documentElement.scrollWidth <= window.innerWidth")).isEqualTo(true);
        assertNoErrorsNorRequests();
    }

    @Test
    void numbersInTheVerdictScrollToTheChartRowOrFlameGraphTheyCameFrom() throws Exception {
        CaseFile cf = TestCases.copy("converter-rebuild", tmp.resolve("numbers"));
        TestCases.profile(cf, "cpu.collapsed", "cpu.collapsed");
        Report report = TestCases.report(cf);
        Refs refs = new Refs(report);
        Path page = Files.writeString(OUT.resolve("report-numbers.html"), HtmlReport.render(report));
        driver.get(page.toUri().toString());
        JavascriptExecutor js = driver;
        assertNoErrorsNorRequests();

        List<WebElement> numbers = driver.findElements(By.cssSelector("#verdict .summary a.num"));
        List<String> kinds = new ArrayList<>();
        for (WebElement number : numbers) {
            String ref = number.getAttribute("title"), target = number.getAttribute("href").replaceAll(".*#", "");
            // The link goes where the page resolves the number's ref: its row, table, chart or flame graph.
            assertThat(target).as(number.getText() + " from " + ref).isEqualTo(refs.target(ref).orElseThrow());
            kinds.add(target.replaceAll("-.*", ""));
            js.executeScript("window.scrollTo(0, 0)");
            number.click();
            assertThat(js.executeScript("return document.getElementById(arguments[0]).classList.contains('flash')", target))
                    .as("#" + target + " flashed after its number was clicked").isEqualTo(true);
            double nav = ((Number) js.executeScript("return document.querySelector('nav').getBoundingClientRect().bottom")).doubleValue();
            double[] last = {Double.NaN};
            new WebDriverWait(driver, Duration.ofSeconds(3)).withMessage(() -> number.getText() + ": #" + target + " top at " + last[0])
                    .until(d -> {
                        last[0] = ((Number) js.executeScript("return document.getElementById(arguments[0]).getBoundingClientRect().top",
                                target)).doubleValue();
                        return last[0] >= nav && last[0] < 200;
                    });
        }
        // converter-rebuild's verdict: counts from the construction table's row, the CPU share from the flame graph.
        assertThat(kinds).contains("row", "flame");
        js.executeScript("window.scrollTo(0, 0)");
        shot(OUT.resolve("report-numbers.png"));
        assertNoErrorsNorRequests();
    }

    @Test
    void diffPageDrawsTheDifferentialFlameGraph() throws Exception {
        CaseFile before = TestCases.copy("converter-rebuild", tmp.resolve("b")), after = TestCases.copy("converter-rebuild-fixed", tmp.resolve("a"));
        TestCases.profile(before, "cpu.collapsed", "cpu.collapsed");
        TestCases.profile(after, "cpu-fixed.collapsed", "cpu.collapsed");
        String html = DiffRenderer.html(CaseDiff.of(before, TestCases.diagnose(before), after, TestCases.diagnose(after)));
        Path page = Files.writeString(OUT.resolve("diff.html"), html);
        driver.get(page.toUri().toString());

        assertNoErrorsNorRequests();
        List<WebElement> frames = driver.findElements(By.cssSelector("#flame-cpu-diff .fr"));
        assertThat(frames).hasSizeGreaterThan(4);
        // PgStatement.executeQuery took 15 % before and 51 % after: drawn red (grew).
        WebElement grew = frames.stream().filter(e -> e.getText().equals("org.postgresql.jdbc.PgStatement.executeQuery")).findFirst().orElseThrow();
        assertThat(grew.getCssValue("background-color")).matches("rgba?\\((2[0-9]{2}), ([0-9]{1,3}), \\2.*");
        // The converter rebuild took 68 % before and nothing after: still drawn, as wide as it was, in blue.
        WebElement gone = frames.stream().filter(e -> e.getText().equals("com.example.config.MapperConfig.lambda$converters$0"))
                .findFirst().orElseThrow();
        double box = driver.findElement(By.cssSelector("#flame-cpu-diff .flame-box")).getRect().getWidth();
        assertThat(gone.getRect().getWidth() / box).as("share of the graph's width").isGreaterThan(0.3);
        assertThat(gone.getCssValue("background-color")).matches("rgba?\\(([0-9]{1,2}), ([0-9]{1,3}), (2[0-9]{2}).*");
        assertThat(gone.getAttribute("title")).contains("before, 0.00% after");
        shot(OUT.resolve("diff.png"));
        ((JavascriptExecutor) driver).executeScript("document.getElementById('flames').scrollIntoView()");
        shot(OUT.resolve("diff-flame.png"));
    }

    @Test
    void sixtySecondCaseStaysUnderTenMegabytesAndOpensFast() throws Exception {
        CaseFile cf = SyntheticCase.write(tmp.resolve("sixty"), 60);
        Path page = HtmlReport.write(cf, List.of(), OUT.resolve("sixty.html"));
        long bytes = Files.size(page);
        driver.get(page.toUri().toString());
        Number readyMs = (Number) ((JavascriptExecutor) driver).executeScript("return culpritReport.readyMs");
        assertNoErrorsNorRequests();
        // Measured and printed for the record; the budget (2 s) is not a timed assertion on a shared CI box.
        System.out.printf("60 s case report: %,d bytes, drawn %.0f ms after navigation start%n", bytes, readyMs.doubleValue());
        assertThat(bytes).isLessThan(10L * 1024 * 1024);
    }

    /**
     * The same figures for a recorded case, when one is named: {@code -Dreport.case=DIR} (e.g. a
     * {@code culprit demo --duration 60} case). Its page is written under target/, not in the case.
     */
    @Test
    void recordedCaseSizeAndOpenTime() throws Exception {
        String dir = System.getProperty("report.case");
        assumeTrue(dir != null && !dir.isBlank(), "name a recorded case with -Dreport.case=DIR to measure its page");
        CaseFile cf = CaseFile.open(Path.of(dir));
        Path page = HtmlReport.write(cf, cf.findings(), OUT.resolve("recorded.html"));
        driver.get(page.toUri().toString());
        Number readyMs = (Number) ((JavascriptExecutor) driver).executeScript("return culpritReport.readyMs");
        assertNoErrorsNorRequests();
        System.out.printf("recorded case %s report: %,d bytes, drawn %.0f ms after navigation start%n",
                cf.dir().getFileName(), Files.size(page), readyMs.doubleValue());
        assertThat(Files.size(page)).isLessThan(10L * 1024 * 1024);
    }

    private static void assertNoErrorsNorRequests() {
        List<LogEntry> severe = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()).toList();
        assertThat(severe).as("browser console errors and warnings").isEmpty();
        Object resources = ((JavascriptExecutor) driver).executeScript(
                "return performance.getEntriesByType('resource').map(e => e.name)");
        assertThat((List<?>) resources).as("network requests made by the page").isEmpty();
    }

    private static void shot(Path file) throws Exception {
        Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    }

}

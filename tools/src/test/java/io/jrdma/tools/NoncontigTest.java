package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.examples.noncontig.Method;
import io.jrdma.examples.noncontig.Report;
import io.jrdma.soft.Threading;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/**
 * {@code jrdma noncontig} end to end on soft devices at 127.0.50.x: tiny layouts (an odd block size, layouts split
 * into several work requests by the device's max_sge and by --max-sge), every method verified, and the CSV, SVG
 * and PNG files read back; bad layouts and options fail with a message and exit status 2.
 */
class NoncontigTest {

    private static final String[] FAST = {"-n", "5", "--warmup", "1", "--duration-ms", "40", "--timeout", "10"};

    @TempDir
    Path dir;

    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Jrdma.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("noncontig"));
        all.addAll(Arrays.asList(args));
        int status = cl.execute(all.toArray(String[]::new));
        return new Run(status, out.toString(), err.toString());
    }

    private static String[] with(String[] base, String... more) {
        String[] all = Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void shouldSweepAndWriteCsvSvgAndPngWithOneEntryPerMethodAndSize() throws IOException {
        Path csv = dir.resolve("nc.csv");
        Path svg = dir.resolve("nc.svg");
        Path png = dir.resolve("nc.png");
        // 33 blocks: more than the device's max_sge (32), so every zero-copy message takes 2 work requests
        Run r = run(with(FAST, "--addr-a", "127.0.50.11", "--addr-b", "127.0.50.12", "--sizes", "1,8,100",
                "--block-num", "33", "--csv", csv.toString(), "--plot", svg.toString(), "--plot", png.toString()));
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("all 18 points verified"), r.out());
        assertTableRows(r.out(), List.of(1, 8, 100));

        List<Map<String, String>> rows = readCsv(csv);
        assertEquals(18, rows.size(), "one row per method per size");
        for (int bs : new int[] {1, 8, 100}) {
            Set<String> methods = rows.stream().filter(row -> row.get("block_size").equals(Integer.toString(bs)))
                    .map(row -> row.get("method")).collect(Collectors.toSet());
            assertEquals(allLabels(), methods, "methods of block_size " + bs);
        }
        for (Map<String, String> row : rows) {
            boolean zc = Boolean.parseBoolean(row.get("zero_copy"));
            assertEquals(zc ? "2" : "1", row.get("wrs_per_message"), row.toString());
            assertEquals(zc ? "32" : "1", row.get("max_sge"), row.toString());
            assertEquals("33", row.get("block_num"));
            assertEquals(Long.toString(2L * Integer.parseInt(row.get("block_size"))), row.get("stride"));
            assertEquals(Long.toString(33L * Integer.parseInt(row.get("block_size"))), row.get("message_bytes"));
            assertTrue(Integer.parseInt(row.get("iterations")) >= 1, row.toString());
            assertTrue(Double.parseDouble(row.get("mb_per_s")) > 0, row.toString());
            assertEquals("true", row.get("verified"));
        }

        String doc = Files.readString(svg, StandardCharsets.UTF_8);
        assertTrue(doc.startsWith("<?xml") && doc.trim().endsWith("</svg>"), doc);
        Matcher m = Pattern.compile("<polyline data-series=\"([^\"]+)\"[^>]* points=\"([^\"]*)\"").matcher(doc);
        Set<String> series = new HashSet<>();
        while (m.find()) {
            series.add(m.group(1));
            assertEquals(3, m.group(2).trim().split(" ").length, "one point per size in " + m.group(0));
        }
        assertEquals(allLabels(), series, "one polyline per method");
        assertEquals(6, countOf(doc, "<polyline"), doc);

        BufferedImage img = ImageIO.read(png.toFile());
        assertNotNull(img, "the PNG does not decode");
        assertEquals(960, img.getWidth());
        assertEquals(560, img.getHeight());
        assertTrue(colours(img) > 5, "the PNG is blank");
    }

    @Test
    void shouldSplitAnOddLayoutByMaxSge() throws IOException {
        Path csv = dir.resolve("odd.csv");
        // 3-byte blocks, stride 7, 40 blocks at 4 SGEs per request: 10 work requests per zero-copy message
        Run r = run(with(FAST, "--addr-a", "127.0.50.13", "--addr-b", "127.0.50.14", "--block-size", "3",
                "--stride", "7", "--block-num", "40", "--max-sge", "4", "--csv", csv.toString()));
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("max_sge 4 per SEND/WRITE/RECV and 4 per READ (device max_sge 32)"), r.out());
        assertTrue(r.out().contains("all 6 points verified"), r.out());
        List<Map<String, String>> rows = readCsv(csv);
        assertEquals(6, rows.size());
        for (Map<String, String> row : rows) {
            boolean zc = Boolean.parseBoolean(row.get("zero_copy"));
            assertEquals(zc ? "10" : "1", row.get("wrs_per_message"), row.toString());
            assertEquals("7", row.get("stride"));
            assertEquals("120", row.get("message_bytes"));
        }
    }

    /**
     * {@code jrdma noncontig} without {@code -t} runs in the threading {@code -Djrdma.threading} names, to completion
     * and with every point verified, in every mode: a JVM of its own, devices on 127.0.144.M1 and 127.0.144.M2 (M the
     * mode's ordinal + 1).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void shouldRunToCompletionInEveryThreadingMode(Threading mode) throws Exception {
        String a = "127.0.144." + (mode.ordinal() + 1) + "1";
        String b = "127.0.144." + (mode.ordinal() + 1) + "2";
        List<String> args = new ArrayList<>(List.of("noncontig"));
        args.addAll(List.of(with(FAST, "--addr-a", a, "--addr-b", b, "--sizes", "8,100", "--block-num", "33")));
        try (ChildJvm nc = ChildJvm.jrdma(dir, "noncontig", mode, null, args.toArray(String[]::new))) {
            ChildJvm.awaitAll(nc);
            assertEquals(0, nc.status(), nc.describe());
            assertTrue(nc.err().isEmpty(), nc.describe());
            assertTrue(nc.out().startsWith("jrdma noncontig: A " + a + " -> B " + b + ", path MTU 4096, "
                    + mode.name().toLowerCase(Locale.ROOT) + " engine\n"), nc.describe());
            assertTrue(nc.out().contains("all 12 points verified"), nc.describe());
            assertTableRows(nc.out(), List.of(8, 100));
        }
    }

    @Test
    void shouldRejectAStrideSmallerThanTheBlockSize() {
        Run r = run("--addr-a", "127.0.50.15", "--addr-b", "127.0.50.16", "--block-size", "8", "--stride", "4");
        assertEquals(2, r.status(), r.out() + r.err());
        assertTrue(r.err().contains("stride (4) must be at least block_size (8)"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void shouldRejectBadOptionsWithAMessage() {
        String[][] cases = { // arguments, then the message expected on stderr
            {"--block-size", "8", "--max-sge", "33", "more than the device's max_sge 32"},
            {"--block-size", "8", "--max-sge", "0", "--max-sge must be at least 1"},
            {"--block-size", "8", "--plot", "x.gif", "must end in .svg or .png"},
            {"--sizes", "8", "--max", "64", "either --sizes or --min / --max"},
            {"--block-size", "8", "--sizes", "16", "either --block-size"},
            {"--min", "64", "--max", "8", "--min <= --max"},
            {"--block-size", "12Q", "not a size in bytes: '12Q'"},
        };
        for (String[] c : cases) {
            Run r = run(with(new String[] {"--addr-a", "127.0.50.17", "--addr-b", "127.0.50.18"},
                    Arrays.copyOf(c, c.length - 1)));
            assertEquals(2, r.status(), Arrays.toString(c) + ": " + r.out() + r.err());
            assertTrue(r.err().contains(c[c.length - 1]), Arrays.toString(c) + ": " + r.err());
        }
    }

    private static Set<String> allLabels() {
        return Arrays.stream(Method.values()).map(Method::label).collect(Collectors.toSet());
    }

    private static void assertTableRows(String out, List<Integer> sizes) {
        for (int bs : sizes) {
            Pattern row = Pattern.compile("(?m)^\\s+" + bs + "\\s+33\\s+\\S+ \\S+\\s+2 \\|"
                    + "(\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+ \\|){3}$");
            assertTrue(row.matcher(out).find(), "no table row for block size " + bs + " in\n" + out);
        }
    }

    private static List<Map<String, String>> readCsv(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        assertEquals(Report.CSV_HEADER, lines.getFirst());
        String[] names = lines.getFirst().split(",");
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(names.length, f.length, line);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < names.length; i++) {
                row.put(names[i], f[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    private static int countOf(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static int colours(BufferedImage img) {
        Set<Integer> seen = new HashSet<>();
        for (int y = 0; y < img.getHeight(); y += 7) {
            for (int x = 0; x < img.getWidth(); x += 7) {
                seen.add(img.getRGB(x, y));
            }
        }
        return seen.size();
    }
}

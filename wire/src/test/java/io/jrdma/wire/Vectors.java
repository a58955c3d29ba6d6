package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Locates the kernel rxe golden vectors ({@code vectors/rxe} in the repository, or {@code shared/vectors/rxe} beside it) and parses their README.
 * Missing vectors fail the tests unless the environment variable JRDMA_NO_VECTORS is set.
 */
final class Vectors {
    private static final Pattern SECTION = Pattern.compile("^## (\\S+\\.pcap)\\s*$");
    private static final Pattern COUNT = Pattern.compile("^\\s*- (\\d+) x (\\w+) \\((\\d+)\\)\\s*$");
    private static final Pattern FRAMES = Pattern.compile("^\\s*- (\\d+) frames \\((\\d+) RoCEv2\\)");

    /** What the README says about one capture. */
    record Expected(int frames, int rocePackets, Map<Integer, Integer> countByCode, Map<Integer, String> nameByCode) {
    }

    private Vectors() {
    }

    /** The vectors directory; fails (or aborts, with JRDMA_NO_VECTORS set) when it cannot be found. */
    static Path dir() {
        String override = System.getenv("JRDMA_VECTORS");
        if (override != null && Files.isDirectory(Path.of(override))) {
            return Path.of(override);
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = start; d != null; d = d.getParent()) {
            for (Path candidate : new Path[] {d.resolve("vectors/rxe"), d.resolve("shared/vectors/rxe")}) {
                if (Files.isDirectory(candidate)) {
                    return candidate;
                }
            }
        }
        assumeTrue(System.getenv("JRDMA_NO_VECTORS") == null, "JRDMA_NO_VECTORS set: golden vector tests skipped");
        return fail("golden vectors not found: no vectors/rxe or shared/vectors/rxe in " + start + " or any parent "
                + "directory (expected <clone>/vectors/rxe; set JRDMA_VECTORS=<dir>, or JRDMA_NO_VECTORS=1 to skip)");
    }

    /**
     * The connection-management captures ({@code vectors/rxe-cm}, beside {@link #dir()}); aborts the calling test,
     * saying so, when the vectors came from a directory without them (the shared copy has none).
     */
    static Path cmDir() {
        Path d = dir().resolveSibling("rxe-cm");
        assumeTrue(Files.isDirectory(d), "no " + d + ": the CM capture tests need the repository's vectors/rxe-cm");
        return d;
    }

    /** Every .pcap file in the vectors directory, sorted; at least one. */
    static List<Path> pcaps() {
        try (Stream<Path> files = Files.list(dir())) {
            List<Path> list = files.filter(p -> p.getFileName().toString().endsWith(".pcap")).sorted().toList();
            if (list.isEmpty()) {
                fail("no .pcap files in " + dir());
            }
            return list;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The README's facts per capture file name. */
    static Map<String, Expected> readme() {
        List<String> lines;
        try {
            lines = Files.readAllLines(dir().resolve("README.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Expected> out = new LinkedHashMap<>();
        String file = null;
        int frames = -1;
        int roce = -1;
        Map<Integer, Integer> counts = new LinkedHashMap<>();
        Map<Integer, String> names = new LinkedHashMap<>();
        List<String> all = new ArrayList<>(lines);
        all.add("## end.pcap");
        for (String line : all) {
            Matcher m;
            if ((m = SECTION.matcher(line)).matches()) {
                if (file != null) {
                    out.put(file, new Expected(frames, roce, counts, names));
                }
                file = m.group(1);
                frames = -1;
                roce = -1;
                counts = new LinkedHashMap<>();
                names = new LinkedHashMap<>();
            } else if (file != null && (m = COUNT.matcher(line)).matches()) {
                int code = Integer.parseInt(m.group(3));
                counts.put(code, Integer.parseInt(m.group(1)));
                names.put(code, m.group(2));
            } else if (file != null && (m = FRAMES.matcher(line)).find()) {
                frames = Integer.parseInt(m.group(1));
                roce = Integer.parseInt(m.group(2));
            }
        }
        return out;
    }
}

package io.jrdma.tools;

import io.jrdma.soft.CountersFile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jrdma monitor [interval]}: receive and transmit rates of every soft device open in a running process,
 * every interval, from the port counters in their counters files — what an ib_monitor script prints from
 * port_rcv_data and port_xmit_data.
 */
@Command(name = "monitor", mixinStandardHelpOptions = true,
        description = {"Prints receive and transmit MB/s (10^6 bytes) and kpps of every soft device open in a "
                + "running process, every INTERVAL seconds, until interrupted or COUNT reports.",
            "Devices that open later are picked up; devices that close disappear."})
final class MonitorCommand implements Callable<Integer> {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

    @Parameters(arity = "0..1", paramLabel = "INTERVAL", defaultValue = "1",
            description = "seconds between reports (default 1; fractions allowed)")
    private double interval;

    @Option(names = {"-c", "--count"}, paramLabel = "COUNT", defaultValue = "0",
            description = "stop after COUNT reports (default: run until interrupted)")
    private long count;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "only device DEV")
    private String device;

    @Spec
    private CommandSpec spec;

    /** The last sample of one device's file. */
    private record Sample(CountersFile file, long rxBytes, long rxPackets, long txBytes, long txPackets) {
        static Sample of(CountersFile f) {
            return new Sample(f, f.value("port_rcv_data"), f.value("port_rcv_packets"), f.value("port_xmit_data"),
                    f.value("port_xmit_packets"));
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        if (!(interval > 0) || interval > 86_400) {
            throw new IllegalArgumentException("INTERVAL must be more than 0 and at most 86400 seconds");
        }
        if (count < 0) {
            throw new IllegalArgumentException("COUNT must not be negative");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path dir = CountersFile.directory();
        Map<Path, Sample> last = new HashMap<>();
        long intervalNs = (long) (interval * 1e9);
        try {
            refresh(dir, last);
            long t = System.nanoTime();
            out.println(header());
            out.flush();
            for (long n = 0; count == 0 || n < count; n++) {
                long next = t + intervalNs;
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
                long now = System.nanoTime();
                double seconds = (now - t) / 1e9;
                t = now;
                List<String> lines = report(last, seconds);
                String time = TIME.format(LocalTime.now());
                if (lines.isEmpty()) {
                    out.printf(Locale.ROOT, "%-8s  %s%n", time, "(no soft device open)");
                }
                for (String line : lines) {
                    out.printf(Locale.ROOT, "%-8s  %s%n", time, line);
                }
                out.flush();
                refresh(dir, last);
            }
            return 0;
        } finally {
            last.values().forEach(s -> s.file().close());
        }
    }

    static String header() {
        return String.format(Locale.ROOT, "%-8s  %-16s %10s %10s %10s %10s", "time", "device", "rx MB/s",
                "rx kpps", "tx MB/s", "tx kpps");
    }

    /** One line per device seen at the last refresh and still open: its rates since then. */
    private static List<String> report(Map<Path, Sample> last, double seconds) {
        List<String> lines = new ArrayList<>();
        List<Path> order = new ArrayList<>(last.keySet());
        order.sort(null);
        for (Path p : order) {
            Sample before = last.get(p);
            CountersFile f = before.file();
            if (f.closed()) {
                continue;
            }
            Sample now = Sample.of(f);
            lines.add(line(f.device(), now.rxBytes() - before.rxBytes(), now.rxPackets() - before.rxPackets(),
                    now.txBytes() - before.txBytes(), now.txPackets() - before.txPackets(), seconds));
            last.put(p, now);
        }
        return lines;
    }

    /** A device's line: rates from counter differences over {@code seconds}. */
    static String line(String device, long rxBytes, long rxPackets, long txBytes, long txPackets, double seconds) {
        return String.format(Locale.ROOT, "%-16s %10.2f %10.2f %10.2f %10.2f", device, rxBytes / seconds / 1e6,
                rxPackets / seconds / 1e3, txBytes / seconds / 1e6, txPackets / seconds / 1e3);
    }

    /** Drops closed devices, adds newly opened ones (their first line comes after one interval). */
    private void refresh(Path dir, Map<Path, Sample> last) {
        last.values().removeIf(s -> {
            if (s.file().closed() || s.file().stale()) {
                s.file().close();
                return true;
            }
            return false;
        });
        for (CountersFile f : CountersFile.list(dir)) {
            Sample known = last.get(f.path());
            boolean wanted = (device == null || device.equals(f.device())) && !f.closed() && !f.stale();
            if (wanted && (known == null || known.file().pid() != f.pid())) {
                if (known != null) {
                    known.file().close();
                }
                last.put(f.path(), Sample.of(f));
            } else {
                f.close();
            }
        }
    }
}

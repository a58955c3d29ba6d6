package io.jrdma.tools;

import io.jrdma.soft.CountersFile;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jrdma stat [-d dev]}: the counters of the soft devices that running processes have open, read from their
 * counters files ({@link CountersFile}): the IB port counters, then rxe's hw_counters, then jrdma's own.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = {"Prints the counters of soft devices open in running processes (port_xmit_data, "
                + "port_rcv_data, port_xmit_packets, port_rcv_packets, then rxe's hw_counters and jrdma's own).",
            "Data counters count bytes (the IB port counters count 4-byte words).",
            "Reads the counters files in jrdma.counters.dir / JRDMA_COUNTERS_DIR, default /dev/shm/jrdma-$USER."})
final class StatCommand implements Callable<Integer> {

    /** The IB port counters, printed first. */
    static final List<String> PORT = List.of("port_xmit_data", "port_rcv_data", "port_xmit_packets",
            "port_rcv_packets");
    /** rxe's hw_counters, in rxe's order (those the soft device counts). */
    static final List<String> RXE = List.of("sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
            "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "retry_exceeded_err", "retry_rnr_exceeded_err",
            "completer_retry_err", "send_err", "rdma_sends", "rdma_recvs");

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "only device DEV")
    private String device;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<CountersFile> files = CountersFile.list(CountersFile.directory());
        try {
            List<CountersFile> live = live(files, device, err);
            if (live.isEmpty()) {
                if (device != null) {
                    throw new IllegalArgumentException("device " + device + " is not open in any running process "
                            + "(no live counters file in " + CountersFile.directory() + ")");
                }
                err.println("jrdma stat: no soft device is open in a running process");
                err.flush();
                return 0;
            }
            for (CountersFile f : live) {
                out.print(report(f, Instant.now()));
            }
            out.flush();
            return 0;
        } finally {
            files.forEach(CountersFile::close);
        }
    }

    /** The open devices' files among {@code files}, optionally of one device; stale ones are noted on err. */
    static List<CountersFile> live(List<CountersFile> files, String device, PrintWriter err) {
        List<CountersFile> out = new ArrayList<>();
        for (CountersFile f : files) {
            if (device != null && !device.equals(f.device())) {
                continue;
            }
            if (f.closed()) {
                continue;
            }
            if (f.stale()) {
                if (err != null) {
                    err.println("jrdma: skipping " + f.path() + ": process " + f.pid() + " exited without closing "
                            + f.device() + " (the file can be deleted)");
                    err.flush();
                }
                continue;
            }
            out.add(f);
        }
        return out;
    }

    /** One device's block: a heading line, then one {@code name value} line per counter. */
    static String report(CountersFile f, Instant now) {
        StringBuilder sb = new StringBuilder(1024);
        Duration up = Duration.between(f.opened(), now);
        sb.append(String.format(Locale.ROOT, "link %s/1 address %s pid %d up %d:%02d:%02d%n", f.device(),
                f.address().getHostAddress(), f.pid(), up.toHours(), up.toMinutesPart(), up.toSecondsPart()));
        List<String> order = new ArrayList<>(PORT);
        order.addAll(RXE);
        for (String name : f.names()) {
            if (!order.contains(name)) {
                order.add(name);
            }
        }
        for (String name : order) {
            long v = f.value(name);
            if (v >= 0) {
                sb.append(String.format(Locale.ROOT, "    %-24s %d%n", name, v));
            }
        }
        return sb.append(System.lineSeparator()).toString();
    }
}

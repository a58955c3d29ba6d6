package io.jrdma.tools.compare;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * One process of a benchmark run, started by {@code jrdma bench} with {@code key=value} arguments: {@code role}
 * (server or client), {@code system} (jrdma, tcp, udp, aeron), {@code workload} (bw, rate, read, lat, idle) and the
 * workload's parameters. It connects the control connection (the server listens on {@code self:port}, the client
 * connects from {@code self}), runs its side and prints one line {@code result key=value ...} on stdout. Several
 * runs, separated by the word {@value #NEXT}, run one after the other, each with its own control connection and
 * result line ({@code --quick} batches a scenario's cases this way to save JVM starts). Exit status: 0 done,
 * 1 failed, 2 bad arguments, {@value BenchFailure#EXIT_STATUS} data verification failed, {@value #TIMED_OUT} out of
 * time (a watchdog halts the process once the sum of the runs' {@code timeout_ms} has passed), {@value #ORPHANED}
 * the runner went away (its end of stdin closed).
 */
public final class BenchChild {

    /** The word between the parameters of consecutive runs. */
    static final String NEXT = "+";
    static final int TIMED_OUT = 4;
    static final int ORPHANED = 5;

    private BenchChild() {
    }

    /** Entry point. */
    public static void main(String[] args) {
        PrintStream err = System.err;
        List<Params> runs = new ArrayList<>();
        long totalMs = 0;
        try {
            int from = 0;
            for (int i = 0; i <= args.length; i++) {
                if (i == args.length || args[i].equals(NEXT)) {
                    Params p = Params.parse(java.util.Arrays.copyOfRange(args, from, i), 0);
                    p.str("role");
                    p.str("system");
                    p.str("workload");
                    totalMs += p.lng("timeout_ms", 60_000);
                    runs.add(p);
                    from = i + 1;
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("bench child: " + e.getMessage());
            System.exit(2);
            return;
        }
        watchdog(totalMs + 2_000, runs.get(0));
        if (runs.get(0).str("watch_stdin", "true").equals("true")) {
            orphanWatch();
        }
        int status = 0;
        for (Params p : runs) {
            status = runOne(p);
            if (status != 0) {
                break;
            }
        }
        err.flush();
        System.exit(status); // also ends threads a failed run left behind (Aeron's, a blocked reader)
    }

    private static int runOne(Params p) {
        PrintStream err = System.err;
        int status;
        try {
            String result = run(p, new Deadline(p.lng("timeout_ms", 60_000)));
            System.out.println("result " + result);
            System.out.flush();
            status = 0;
        } catch (BenchFailure e) {
            err.println("bench child " + p.str("role") + " (" + p.str("system") + "): " + e.getMessage());
            status = BenchFailure.EXIT_STATUS;
        } catch (Exception | Error e) {
            String m = e.getMessage();
            err.println("bench child " + p.str("role") + " (" + p.str("system") + "): error: "
                    + (m == null || m.isBlank() ? e.toString() : m));
            if (p.str("trace", "false").equals("true")) {
                e.printStackTrace(err);
            }
            status = 1;
        }
        return status;
    }

    private static String run(Params p, Deadline deadline) throws Exception {
        boolean server = p.str("role").equals("server");
        String system = p.str("system");
        String workload = p.str("workload");
        int port = p.integer("port");
        long connectMs = Math.min(p.lng("timeout_ms", 60_000), 30_000);
        try (Control control = server ? Control.accept(p.str("self"), port, connectMs)
                : Control.connect(p.str("peer"), port, p.str("self"), connectMs)) {
            return switch (system + "/" + workload + "/" + (server ? "server" : "client")) {
                case "jrdma/bw/server", "jrdma/rate/server" -> JrdmaWrite.receive(p, control, deadline);
                case "jrdma/bw/client", "jrdma/rate/client" -> JrdmaWrite.send(p, control, deadline);
                case "jrdma/read/server" -> JrdmaRead.serve(p, control, deadline);
                case "jrdma/read/client" -> JrdmaRead.read(p, control, deadline);
                case "jrdma/lat/server" -> JrdmaPingPong.pong(p, control, deadline);
                case "jrdma/lat/client" -> JrdmaPingPong.ping(p, control, deadline);
                case "tcp/bw/server" -> NioBench.streamReceive(p, control, deadline);
                case "tcp/bw/client" -> NioBench.streamSend(p, control, deadline);
                case "tcp/rate/server" -> NioBench.rateReceive(p, control, deadline);
                case "tcp/rate/client" -> NioBench.rateSend(p, control, deadline);
                case "udp/lat/server" -> NioBench.udpPong(p, control, deadline);
                case "udp/lat/client" -> NioBench.udpPing(p, control, deadline);
                case "jrdma/idle/server" -> JrdmaIdle.serve(p, control, deadline);
                case "jrdma/idle/client" -> JrdmaIdle.client(p, control, deadline);
                case "udp/idle/server" -> IdleBench.udpServe(p, control, deadline);
                case "udp/idle/client" -> IdleBench.udpClient(p, control, deadline);
                case "aeron/bw/server", "aeron/rate/server" -> AeronBench.streamReceive(p, control, deadline);
                case "aeron/bw/client", "aeron/rate/client" -> AeronBench.streamSend(p, control, deadline);
                case "aeron/lat/server" -> AeronBench.pong(p, control, deadline);
                case "aeron/lat/client" -> AeronBench.ping(p, control, deadline);
                default -> throw new IllegalArgumentException("no workload " + workload + " for system " + system);
            };
        }
    }

    /** Halts the process (no cleanup can hang it) if it is still running after {@code ms}. */
    private static void watchdog(long ms, Params p) {
        Thread.ofPlatform().daemon().name("bench-watchdog").start(() -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("bench child " + p.str("role") + " (" + p.str("system") + "): error: still running "
                    + "after " + ms + " ms; halting");
            System.err.flush();
            Runtime.getRuntime().halt(TIMED_OUT);
        });
    }

    /** Halts the process when stdin reaches its end: the runner that holds the other end is gone. */
    private static void orphanWatch() {
        Thread.ofPlatform().daemon().name("bench-orphan-watch").start(() -> {
            InputStream in = System.in;
            try {
                while (in.read() >= 0) {
                    // the runner writes nothing; any byte is ignored
                }
            } catch (IOException e) {
                // treated as the end
            }
            Runtime.getRuntime().halt(ORPHANED);
        });
    }
}

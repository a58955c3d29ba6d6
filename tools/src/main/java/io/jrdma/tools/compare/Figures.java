package io.jrdma.tools.compare;

/**
 * The result lines of one run's two children and the figures derived from them. The measuring side (the receiver
 * of a stream, the reader, the ping-pong client) reports {@code msgs}, {@code bytes} and {@code ns} of the measured
 * interval, or the latency percentiles; both sides report {@code cpu_ns} over {@code wall_ns} of that interval. In
 * the idle scenario both report {@code idle_cpu_ns} over {@code idle_wall_ns}, and the client the {@code wake_*}
 * round trips.
 */
record Figures(Params server, Params client) {

    private Params measuring() {
        return server.has("ns") || server.has("p50_ns") ? server : client;
    }

    /** Megabytes (10^6) per second at the receiver. */
    double mbPerSecond() {
        Params m = measuring();
        return m.dbl("bytes") / m.dbl("ns") * 1e3;
    }

    /** Messages per second at the receiver. */
    double messagesPerSecond() {
        Params m = measuring();
        return m.dbl("msgs") / m.dbl("ns") * 1e9;
    }

    /** Median half round trip, microseconds. */
    double p50Micros() {
        return measuring().dbl("p50_ns") / 1e3;
    }

    /** 99th percentile half round trip, microseconds. */
    double p99Micros() {
        return measuring().dbl("p99_ns") / 1e3;
    }

    /** CPUs busy in the measured interval, both processes together. */
    double cpus() {
        return server.dbl("cpu_ns") / server.dbl("wall_ns") + client.dbl("cpu_ns") / client.dbl("wall_ns");
    }

    /** The idle interval's CPU time of the busier process, percent of one core. */
    double idleCpuPercent() {
        return Math.max(idlePercent(server), idlePercent(client));
    }

    /** The idle interval's CPU time of the process that reported {@code p}, percent of one core. */
    static double idlePercent(Params p) {
        return 100.0 * p.dbl("idle_cpu_ns") / p.dbl("idle_wall_ns");
    }

    /** Median full round trip after an idle gap, microseconds. */
    double wakeP50Micros() {
        return client.dbl("wake_p50_ns") / 1e3;
    }

    /** 99th percentile full round trip after an idle gap, microseconds. */
    double wakeP99Micros() {
        return client.dbl("wake_p99_ns") / 1e3;
    }

    /** The run's main figure, for the progress line of a run of {@code workload}. */
    String summary(String workload) {
        return switch (workload) {
            case "idle" -> String.format(java.util.Locale.ROOT, "idle CPU %.3f %% (server), %.3f %% (client) of a "
                    + "core; RTT busy p50 %.1f us, after idle gaps p50 %.1f us, p99 %.1f us", idlePercent(server),
                    idlePercent(client), client.dbl("busy_p50_ns") / 1e3, wakeP50Micros(), wakeP99Micros());
            case "lat" -> String.format(java.util.Locale.ROOT, "p50 %.2f us, p99 %.2f us half round trip",
                    p50Micros(), p99Micros());
            case "rate" -> String.format(java.util.Locale.ROOT, "%,.0f msg/s", messagesPerSecond());
            default -> String.format(java.util.Locale.ROOT, "%.0f MB/s, %.0f MB per CPU-s", mbPerSecond(),
                    mbPerCpuSecond());
        };
    }

    /** Megabytes moved per CPU-second, both ends' CPU time counted. */
    double mbPerCpuSecond() {
        return mbPerSecond() / cpus();
    }
}

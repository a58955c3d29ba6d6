package io.jrdma.tools.compare;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one {@code jrdma bench} invocation runs: the scenarios, timing, repetitions, addresses and ports, the engine
 * threading per scenario (jrdma's and Aeron's driver's), extra child JVM flags, and the test hook.
 *
 * @param scenarios      the scenarios, in table order
 * @param warmupMs       warm-up before each measured interval
 * @param durationMs     each measured interval
 * @param iterations     most round trips measured per latency run
 * @param repeat         runs of each case; the table shows the median
 * @param serverAddress  the server child's address (its soft device, sockets, Aeron endpoint)
 * @param clientAddress  the client child's address
 * @param port           the control connection's TCP port; the TCP/UDP baselines use {@code port + 1}
 * @param aeronPort      the Aeron data stream's UDP port; ping-pong also uses {@code aeronPort + 1}
 * @param timeoutMs      the time a run may take beyond warm-up and measurement (JVM start, setup, drain)
 * @param threading      jrdma's engine threading per scenario
 * @param aeronThreading the Aeron media driver's threading mode per scenario
 * @param aeronMtu       the Aeron MTU (bytes)
 * @param jvmArgs        extra flags for the child JVMs
 * @param corrupt        systems whose sender corrupts one message (test hook), usually empty
 * @param quick          tiny runs for tests
 * @param load           busy processes running beside every case ({@link CpuLoad}), 0 for none
 * @param idleMs         the idle scenario's measured idle interval ({@code --duration}, else 10 s)
 */
record BenchConfig(List<Scenario> scenarios, long warmupMs, long durationMs, int iterations, int repeat,
        String serverAddress, String clientAddress, int port, int aeronPort, long timeoutMs,
        Map<Scenario, String> threading, Map<Scenario, String> aeronThreading, int aeronMtu, List<String> jvmArgs,
        Set<String> corrupt, boolean quick, int load, long idleMs) {

    /** The message of each ping that the corrupt hook damages (early, so that every run reaches it). */
    static final long CORRUPT_MESSAGE = 5;

    /**
     * The budget of a child running one case of {@code s}: warm-up, measurement, and the allowance for the rest; for
     * the idle scenario its warm-up's second part (round trips after short gaps, as long as the first), its idle
     * interval, settle time and wake phase instead of the measurement.
     */
    long childTimeoutMs(Scenario s) {
        long measured = s == Scenario.IDLE ? warmupMs + idleMs + IdleBench.extraMs(quick) : durationMs;
        return warmupMs + measured + timeoutMs;
    }
}

package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Threading;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The measured loops of the tools run compiled after a few hundred iterations, not after the tens of thousands that
 * on-stack replacement needs: each iteration (a bandwidth client's turn: its posts and one poll; its server does not
 * loop) is a method of its own that the JIT compiles from its calls. A loop body inlined in the method that runs the
 * loop once ran in the interpreter for a whole run wherever the rehearsal before it is short in iterations (the native
 * provider's emulated guests, about a millisecond an iteration: 3 % of the CPU samples, issue 20). Server and client
 * each in a JVM of its own with the rehearsal off ({@code jrdma.warmup=0}) and {@code -XX:+PrintCompilation}; 40,000
 * iterations, where the tier-3 compile of a method is asked for after 200 calls (enough for a busy compiler queue to
 * reach it) and on-stack replacement after 60,000 loop turns. rc_pingpong runs 100,000 iterations: its loop turns
 * once every few steps ({@code Pingpong.steps}), fewer times than on-stack replacement needs; turning once a step, it
 * was compiled on the stack here, and inside the measured run on the emulated guests, with its steps inlined.
 */
class LoopCompileTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "ib_send_lat, io.jrdma.tools.perftest.Latency::latSendStep, 1, false, ''",
        "ib_write_lat, io.jrdma.tools.perftest.Latency::latWriteStep, 2, false, ''",
        "rc_pingpong, io.jrdma.tools.pingpong.Pingpong::step, 3, false, io.jrdma.tools.pingpong.Pingpong::loop",
        "ib_write_bw, io.jrdma.tools.perftest.Bandwidth::bwStep, 4, true, ''",
    })
    void eachIterationShouldBeCompiledFromItsCalls(String tool, String step, int net, boolean clientOnly,
            String neverReplaced, @TempDir Path dir) throws Exception {
        String prefix = "127.0.148." + net;
        String devices = "lcserver=" + prefix + "1,lcclient=" + prefix + "2";
        String port = Integer.toString(ChildJvm.freeTcpPort());
        List<String> common = tool.equals("rc_pingpong")
                ? List.of(tool, "-n", "100000", "-p", port, "-g", "1", "--timeout=20")
                : List.of(tool, "-n", "40000", "-s", "2", "-p", port, "--timeout=20");
        List<String> props = List.of("jrdma.devices=" + devices, "jrdma.warmup=0");
        List<String> jvm = List.of("-XX:+PrintCompilation");
        String main = Jrdma.class.getName();
        try (ChildJvm server = ChildJvm.start(dir, "server", Threading.ADAPTIVE, jvm, props, main,
                concat(common, "-d", "lcserver"));
                ChildJvm client = ChildJvm.start(dir, "client", Threading.ADAPTIVE, jvm, props, main,
                        concat(common, "-d", "lcclient", "127.0.0.1"))) {
            ChildJvm.awaitAll(server, client);
            assertEquals(0, server.status(), server::describe);
            assertEquals(0, client.status(), client::describe);
            // a compile line: "<time> <id> <flags> <tier> <class>::<method> (<size> bytes)"; OSR ones have a '%'
            // among the flags and "@ <bci>" after the method
            Pattern compiled = Pattern.compile("(?m)^\\s*\\d+\\s+\\d+\\s+[^%\\d\\n]*[1-4]\\s+"
                    + Pattern.quote(step) + " \\(\\d+ bytes\\)\\s*$");
            for (ChildJvm side : clientOnly ? List.of(client) : List.of(server, client)) {
                assertTrue(compiled.matcher(side.out()).find(), () -> step + " was not compiled from its calls in "
                        + side.describe().lines().filter(l -> l.contains("::") && l.contains("tools."))
                                .limit(80).reduce("", (a, b) -> a + "\n" + b));
                if (!neverReplaced.isEmpty()) { // a loop that turns once a step or more is compiled on the stack
                    Pattern osr = Pattern.compile("(?m)^\\s*\\d+\\s+\\d+\\s+%.*\\s"
                            + Pattern.quote(neverReplaced) + " @ ");
                    assertFalse(osr.matcher(side.out()).find(), () -> neverReplaced + " was compiled on the stack in "
                            + side.describe().lines().filter(l -> l.contains(neverReplaced)).toList());
                }
            }
        }
    }

    private static List<String> concat(List<String> head, String... tail) {
        return java.util.stream.Stream.concat(head.stream(), java.util.stream.Stream.of(tail)).toList();
    }
}

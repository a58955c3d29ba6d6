package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QueuePair;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Eight QPs in two processes (four in a child JVM, four in this one), each on its own soft device with a dedicated
 * engine thread, FETCH_AND_ADD one counter in a third device's memory at the same time. Every increment must
 * happen exactly once: the counter ends at the total, and the original values returned are exactly 0..total-1.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MultiProcessAtomicTest {

    private static final int QPS_PER_CLIENT = 4;
    private static final int PER_QP = 250;
    private static final int TOTAL = 2 * QPS_PER_CLIENT * PER_QP; // 2000

    @Test
    void shouldCountEveryIncrementOnceAcrossProcesses() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-cp", ChildClassPath.get(),
                AtomicClientMain.class.getName(), "127.0.30.12", Integer.toString(QPS_PER_CLIENT),
                Integer.toString(PER_QP)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (Arena arena = Arena.ofShared();
             SoftContext target = SoftDevice.builder().name("faa-target").address("127.0.30.10")
                     .threading(Threading.DEDICATED).build().open();
             FetchAddClient local = new FetchAddClient("127.0.30.11", QPS_PER_CLIENT, PER_QP)) {
            ProtectionDomain pd = target.allocPd();
            CompletionQueue cq = target.createCq(64);
            MemorySegment counter = arena.allocate(4096, 8);
            MemoryRegion mr = pd.registerMemory(counter, Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
            QueuePair[] forChild = new QueuePair[QPS_PER_CLIENT];
            QueuePair[] forLocal = new QueuePair[QPS_PER_CLIENT];
            for (int i = 0; i < QPS_PER_CLIENT; i++) {
                forChild[i] = FetchAddClient.createQp(pd, cq);
                forLocal[i] = FetchAddClient.createQp(pd, cq);
            }
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            PrintStream to = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);

            String[] childSide = from.readLine().trim().split(" ");
            Gid childGid = Gid.parse(childSide[0]);
            int[] childQpns = Arrays.stream(childSide[1].split(",")).mapToInt(Integer::parseInt).toArray();
            for (int i = 0; i < QPS_PER_CLIENT; i++) {
                FetchAddClient.connect(forChild[i], childQpns[i], childGid);
                FetchAddClient.connect(forLocal[i], local.qps[i].qpNum(), local.ctx.queryGid(1, 1));
            }
            Gid targetGid = target.queryGid(1, 1);
            to.println(targetGid + " " + qpns(forChild) + " " + mr.address() + " " + mr.rkey());
            assertEquals("ready", from.readLine());
            local.connect(targetGid, Arrays.stream(forLocal).mapToInt(QueuePair::qpNum).toArray());

            to.println("go");
            CompletableFuture<long[]> mine = CompletableFuture.supplyAsync(
                    () -> local.run(mr.address(), mr.rkey(), TimeUnit.SECONDS.toNanos(60)));
            String line = from.readLine();
            long[] theirs = Arrays.stream(line.split(",")).mapToLong(Long::parseLong).toArray();
            assertEquals("bye", from.readLine());
            long[] ours = mine.get(70, TimeUnit.SECONDS);

            assertEquals(TOTAL, counter.get(ValueLayout.JAVA_LONG, 0), "every increment exactly once");
            assertEquals(0, counter.get(ValueLayout.JAVA_LONG, 8), "nothing beside the counter changed");
            BitSet seen = new BitSet(TOTAL);
            for (long[] values : new long[][] {theirs, ours}) {
                assertEquals(QPS_PER_CLIENT * PER_QP, values.length);
                for (long v : values) {
                    assertTrue(v >= 0 && v < TOTAL, "original value " + v + " out of range");
                    assertTrue(!seen.get((int) v), "original value " + v + " returned twice");
                    seen.set((int) v);
                }
            }
            assertEquals(TOTAL, seen.cardinality());
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
            for (int i = 0; i < QPS_PER_CLIENT; i++) {
                forChild[i].close();
                forLocal[i].close();
            }
            mr.close();
            cq.close();
            pd.close();
        } finally {
            child.destroyForcibly();
        }
    }

    private static String qpns(QueuePair[] qps) {
        StringBuilder sb = new StringBuilder();
        for (QueuePair qp : qps) {
            sb.append(sb.isEmpty() ? "" : ",").append(qp.qpNum());
        }
        return sb.toString();
    }
}

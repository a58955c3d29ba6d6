package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer process killed mid-stream (issue 18: {@code ib_write_bw} whose server got {@code kill -9} left the client
 * retransmitting for good, retry_cnt 7). The requester streams 64 KiB RDMA WRITEs into a {@link SoakPeerMain} child,
 * the child is killed with {@link Process#destroyForcibly()}, and the requester goes on posting: the oldest
 * unacknowledged WR must then complete with RETRY_EXC_ERR within about (retry_cnt + 1) local ACK timeouts, the rest
 * with WR_FLUSH_ERR, every signaled WR exactly once, in order, after the successes of those acknowledged before the
 * kill. The WRs outstanding at the kill may all have been acknowledged before the child died (its engine had them
 * and the ACKs were in our socket), so the WRs posted after the kill are the ones certain to fail.
 */
@Tag("slow")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DeadPeerTest {

    private static final int TIMEOUT = 13; // 4.096 us * 2^13 = 33.6 ms
    private static final int RETRY_CNT = 7;
    private static final int CHUNK = 64 << 10;
    private static final int DEPTH = 16;
    private static final int BEFORE_KILL = 300;
    private static final int TOTAL = BEFORE_KILL + 2 * DEPTH; // more than can be outstanding at the kill

    @Test
    void aKilledPeerShouldFailTheOutstandingWritesWithRetryExceededBadFlow() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED", "-cp",
                ChildClassPath.get(), SoakPeerMain.class.getName(), "127.0.118.6",
                Integer.toString(DEPTH * CHUNK), Integer.toString(TIMEOUT), "MTU_4096")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (Peer me = new Peer("127.0.118.5", Threading.DEDICATED, NanoClock.SYSTEM, CHUNK, Peer.ALL_ACCESS,
                Peer.defaultCap())) {
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            PrintStream to = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
            String[] peer = from.readLine().trim().split(" ");
            int peerRkey = Integer.parseInt(peer[1]);
            long peerAddr = Long.parseLong(peer[2]);
            Peer.Link link = new Peer.Link();
            link.timeout = TIMEOUT;
            link.retryCnt = RETRY_CNT;
            link.mtu = io.jrdma.verbs.Mtu.MTU_4096;
            me.connect(Integer.parseInt(peer[0]), Gid.parse(peer[3]), link);
            to.println(me.qp.qpNum() + " " + me.mr.rkey() + " " + me.mr.address() + " " + me.ctx.queryGid(1, 1));
            assertEquals("ready", from.readLine());

            List<WorkCompletion> done = new ArrayList<>();
            WorkCompletion[] wcs = {new WorkCompletion()};
            long posted = 0;
            long postedAtKill = -1;
            long killedAt = 0;
            long failedAt = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (done.size() < posted || posted < TOTAL) {
                if (posted < TOTAL && posted - done.size() < DEPTH) {
                    me.qp.postSend(new SendWr().wrId(posted).opcode(WrOpcode.RDMA_WRITE)
                            .sendFlags(SendFlags.SIGNALED).sg(new Sge(me.addr(0), CHUNK, me.mr.lkey()))
                            .remoteAddr(peerAddr + (posted % DEPTH) * CHUNK).rkey(peerRkey));
                    posted++;
                }
                if (me.cq.poll(wcs) == 1) {
                    done.add(new WorkCompletion().copyFrom(wcs[0]));
                    if (wcs[0].status() == WcStatus.RETRY_EXC_ERR) {
                        failedAt = System.nanoTime();
                    }
                }
                if (killedAt == 0 && done.size() >= BEFORE_KILL) {
                    child.destroyForcibly();
                    assertTrue(child.waitFor(20, TimeUnit.SECONDS), "the child did not die");
                    killedAt = System.nanoTime();
                    postedAtKill = posted;
                }
                assertTrue(System.nanoTime() < deadline, () -> "still running 60 s on: " + done.size() + " of "
                        + "posted WRs completed; counters " + me.ctx.counters());
            }
            // every WR completed exactly once, in order: successes, then one RETRY_EXC_ERR, then flushes
            int firstError = -1;
            for (int i = 0; i < done.size(); i++) {
                WorkCompletion wc = done.get(i);
                assertEquals(i, wc.wrId(), "completion " + i + " out of order: " + wc);
                if (wc.status() != WcStatus.SUCCESS && firstError < 0) {
                    firstError = i;
                }
                WcStatus want = firstError < 0 ? WcStatus.SUCCESS
                        : i == firstError ? WcStatus.RETRY_EXC_ERR : WcStatus.WR_FLUSH_ERR;
                assertEquals(want, wc.status(), wc.toString());
            }
            int failed = firstError;
            long atKill = postedAtKill;
            assertTrue(failed >= 0, () -> "no WR failed: all " + done.size() + " succeeded, " + (TOTAL - atKill)
                    + " of them posted after the kill; counters " + me.ctx.counters());
            assertTrue(failed >= BEFORE_KILL, () -> "a WR failed before the kill: " + done.get(failed));
            assertTrue(failed <= atKill, () -> "WR " + atKill + ", posted after the kill, succeeded");
            assertEquals(QpState.ERR, me.qp.state());
            assertEquals(1, me.ctx.counters().get(Counter.RETRY_EXCEEDED_ERR));
            long bound = (RETRY_CNT + 1) * Requester.ackTimeoutNs(TIMEOUT) + TimeUnit.SECONDS.toNanos(2);
            long took = failedAt - killedAt;
            assertTrue(took <= bound, "RETRY_EXC_ERR " + took / 1_000_000 + " ms after the kill, bound "
                    + bound / 1_000_000 + " ms");
            WorkCompletion extra = new WorkCompletion();
            assertEquals(0, me.cq.poll(new WorkCompletion[] {extra}), () -> "an extra completion: " + extra);
        } finally {
            child.destroyForcibly();
        }
    }
}

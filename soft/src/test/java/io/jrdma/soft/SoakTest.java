package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Soak: two processes, each with its own soft device and dedicated engine thread, both sending through 1% loss,
 * 1% duplication and 1% reordering (within 8 packets), move at least 1 GiB over RC WRITE, READ and SEND (the
 * system properties {@code jrdma.soak.bytes} and {@code jrdma.soak.faults} set another amount and other faults),
 * on native sockets (GSO batches meet the faults), and a quarter of that on NIO channels
 * ({@code -Djrdma.nio=true} in the child).
 * Every transfer is checked end to end by CRC in
 * the other process, every WR completes exactly once and in order with its length, and the heap of both
 * processes is no larger at the end than after the first round (plus a small bound).
 */
@Tag("slow")
@Timeout(value = 600, unit = TimeUnit.SECONDS) // the default run takes about 20 s; longer runs by property
class SoakTest {

    private static final String PARENT = "127.0.42.10";
    private static final String CHILD = "127.0.42.11";
    private static final long WRITE = 32L << 20;
    private static final long READ = 32L << 20;
    private static final int SENDS = 8;
    private static final int SEND = 1 << 20;
    private static final long BUF = WRITE + READ + (long) SENDS * SEND;
    // 67 ms: recovery is by NAKs mostly; a busy CI host must not time out. retry_cnt 7 is spent (IBA), so a stall of
    // both processes for (7 + 1) timeouts fails a WR: at 33.6 ms that was 270 ms, seen once on a loaded 2-core host
    private static final int TIMEOUT = 14;
    private static final Mtu MTU = Mtu.MTU_4096; // loopback's MTU allows it: a quarter of the packets per byte
    private static final String FAULTS = System.getProperty("jrdma.soak.faults", "drop=0.01,dup=0.01,reorder=0.01:8");
    private static final long HEAP_SLACK = 32L << 20;
    private static final long NIO_SHARE = 4; // the NIO run moves a quarter of the bytes: the native link is the default

    private BufferedReader from;
    private PrintStream to;
    private long wrId;

    @ParameterizedTest
    @EnumSource(LinkKind.class)
    void shouldMoveAGibibyteIntactThroughLossDuplicationAndReordering(LinkKind kind) throws Exception {
        kind.assume();
        long full = Long.getLong("jrdma.soak.bytes", 1L << 30);
        long target = kind != LinkKind.NIO ? full : Math.max(1, full / NIO_SHARE);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-Djrdma.faults=seed=12," + FAULTS, "-Djrdma.nio=" + (kind == LinkKind.NIO), "-Djrdma.shm=" + kind.sharedMemory(), "-cp",
                ChildClassPath.get(), SoakPeerMain.class.getName(), CHILD, Long.toString(BUF),
                Integer.toString(TIMEOUT), MTU.name()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        FaultConfig faults = FaultConfig.parse("seed=11," + FAULTS);
        try (Peer me = new Peer(PARENT, Threading.DEDICATED, NanoClock.SYSTEM, BUF, Peer.ALL_ACCESS,
                Peer.defaultCap(), faults, kind)) {
            assertEquals(kind.linkClass(), LinkKind.wire(me.ctx.link).getClass());
            from = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            to = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
            String[] peer = from.readLine().trim().split(" ");
            int peerRkey = Integer.parseInt(peer[1]);
            long peerAddr = Long.parseLong(peer[2]);
            Peer.Link link = new Peer.Link();
            link.timeout = TIMEOUT;
            link.mtu = MTU;
            me.connect(Integer.parseInt(peer[0]), Gid.parse(peer[3]), link);
            to.println(me.qp.qpNum() + " " + me.mr.rkey() + " " + me.mr.address() + " " + me.ctx.queryGid(1, 1));
            assertEquals("ready", from.readLine());

            long start = System.nanoTime();
            long moved = 0;
            long heapAfterFirst = 0;
            String childAfterFirst = null;
            int rounds = 0;
            while (moved < target) {
                moved += round(me, rounds, peerAddr, peerRkey);
                if (rounds++ == 0) {
                    heapAfterFirst = SoakPeerMain.usedHeap();
                    childAfterFirst = ask("stats");
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;

            // exactly once: nothing more completes, however long we wait
            WorkCompletion[] wcs = {new WorkCompletion()};
            long quiet = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < quiet) {
                assertEquals(0, me.cq.poll(wcs), () -> "an extra completion: " + wcs[0]);
            }
            long heapEnd = SoakPeerMain.usedHeap();
            String childEnd = ask("stats");
            Counters c = me.ctx.counters();
            String figures = String.format("soak on %s: %d MiB in %d rounds, %.1f s (%.1f MiB/s), heap %d -> %d KiB, "
                    + "rss %s%n  parent: %s%n  child:  %s%n  child after round 1: %s", kind, moved >> 20, rounds,
                    seconds, (moved >> 20) / seconds, heapAfterFirst >> 10, heapEnd >> 10, rss(), c, childEnd,
                    childAfterFirst);
            System.out.println(figures);

            assertTrue(moved >= target);
            assertTrue(childEnd.endsWith(" | link=" + kind.linkClass().getSimpleName()), childEnd);
            assertNull(me.ctx.lastEngineFailure());
            assertEquals(0, c.get(Counter.QP_FATAL));
            assertEquals(QpState.RTS, me.qp.state());
            assertTrue(childEnd.contains("failure=null") && childEnd.contains("state=RTS")
                    && childEnd.contains(" qp_fatal=0 "), childEnd);
            // the faults were there and recovery ran on both sides
            assertTrue(c.get(Counter.FAULT_DROPPED) > 0 && c.get(Counter.FAULT_DUPLICATED) > 0
                    && c.get(Counter.FAULT_REORDERED) > 0, figures);
            assertTrue(c.get(Counter.RETRANSMITTED_PKTS) > 0 && c.get(Counter.RCVD_SEQ_ERR) > 0, figures);
            assertTrue(childEnd.matches(".* duplicate_request=[1-9].*"), "the child saw duplicates: " + childEnd);
            // memory flat: the heap after the soak is within a bound of the heap after the first round
            assertTrue(heapEnd < heapAfterFirst + HEAP_SLACK, figures);
            long childHeapFirst = heap(childAfterFirst);
            long childHeapEnd = heap(childEnd);
            assertTrue(childHeapEnd < childHeapFirst + HEAP_SLACK, figures);

            assertEquals("bye", ask("quit"));
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
        } finally {
            child.destroyForcibly();
        }
    }

    /** One round: a WRITE, a READ and {@value #SENDS} SENDs, each checked by CRC on the other side. */
    private long round(Peer me, int r, long peerAddr, int peerRkey) throws Exception {
        long seed = 1000L * r;
        long crc = SoakPeerMain.fill(me.buf, 0, WRITE, seed + 1);
        me.qp.postSend(new SendWr().wrId(++wrId).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(me.addr(0), (int) WRITE, me.mr.lkey())).remoteAddr(peerAddr).rkey(peerRkey));
        expect(me, wrId, WcOpcode.RDMA_WRITE, WRITE);
        assertEquals(Long.toHexString(crc), ask("crc 0 " + WRITE), "round " + r + ": the WRITE arrived intact");

        String readCrc = ask("fill " + WRITE + " " + READ + " " + (seed + 2));
        me.buf.asSlice(WRITE, READ).fill((byte) 0);
        me.qp.postSend(new SendWr().wrId(++wrId).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(me.addr(WRITE), (int) READ, me.mr.lkey())).remoteAddr(peerAddr + WRITE)
                .rkey(peerRkey));
        expect(me, wrId, WcOpcode.RDMA_READ, READ);
        assertEquals(readCrc, Long.toHexString(SoakPeerMain.crc(me.buf, WRITE, READ)), "round " + r + ": READ");

        long base = WRITE + READ;
        assertEquals("ok", ask("recv " + SENDS + " " + SEND + " " + base));
        StringBuilder expected = new StringBuilder();
        long sent = 0;
        for (int i = 0; i < SENDS; i++) {
            int len = SEND - 4099 * ((r + i) % 7);
            long off = base + (long) i * SEND;
            long c = SoakPeerMain.fill(me.buf, off, len, seed + 10 + i);
            me.qp.postSend(new SendWr().wrId(++wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(me.addr(off), len, me.mr.lkey())));
            expected.append(i).append(':').append(WcStatus.SUCCESS).append(':').append(len).append(':')
                    .append(Long.toHexString(c)).append(' ');
            sent += len;
        }
        long firstSend = wrId - SENDS + 1;
        for (int i = 0; i < SENDS; i++) {
            expect(me, firstSend + i, WcOpcode.SEND, SEND - 4099 * ((r + i) % 7));
        }
        assertEquals(expected.toString().trim(), ask("await " + SENDS), "round " + r + ": SENDs received once, "
                + "in order, intact");
        return WRITE + READ + sent;
    }

    private String ask(String command) throws Exception {
        to.println(command);
        String answer = from.readLine();
        return answer == null ? "(child gone)" : answer;
    }

    /** The next completion: this WR, successful, with this opcode and length. */
    private static void expect(Peer p, long id, WcOpcode opcode, long len) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (p.cq.poll(wcs) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion for WR " + id + " within 60 s; " + p.ctx.counters());
            }
            Thread.onSpinWait();
        }
        WorkCompletion wc = wcs[0];
        assertEquals(id, wc.wrId(), () -> "completions in order, each once: " + wc);
        assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + " " + p.ctx.counters());
        assertEquals(opcode, wc.opcode());
        assertEquals(len, wc.byteLen() & 0xFFFFFFFFL);
    }

    private static long heap(String stats) {
        int at = stats.indexOf("heap=");
        return Long.parseLong(stats.substring(at + 5, stats.indexOf(' ', at)));
    }

    private static String rss() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS"))
                    .map(l -> l.replaceAll("\\s+", " ")).findFirst().orElse("?");
        } catch (java.io.IOException | RuntimeException e) {
            return "?";
        }
    }
}

package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two processes move 64 MiB by RDMA WRITEs of 64 KiB and ping-pong SENDs while as many busy-loop processes as the
 * host has cores compete for its CPUs, in each threading mode. Nothing is lost on loopback, so every retransmission
 * comes from starvation alone (an ACK timer expiring because the other side got no CPU in time). Every byte must
 * arrive intact, within a generous bound, and nothing may be lost, rejected or failed on either side. The speed is
 * printed, never asserted, and so is what the child saw while it echoed: its longest gap between polls, its time
 * runnable but waiting for a CPU, and who handled its packets.
 *
 * <p>Starvation timeouts are bounded, not forbidden. The QPs use the usual ACK timeout, 67 ms, and on cores shared
 * with as many busy loops as there are cores the kernel's fair scheduler can leave a runnable thread of the side
 * that owes the answer waiting about that long (round trips of up to 60 ms in the ping-pong are common here, and a
 * pass of the engine that lost the CPU halfway took up to 82 ms). A timeout the requester caused itself is a bug
 * and is tested where it is fixed ({@code TimersTest}: the timer runs from the end of a preempted pass, and is looked
 * at only after a receive). So each side may time out at most once in each phase, and every packet it sent again
 * must have reached the other side as a duplicate (it had arrived: no loss). A host loaded well beyond the busy
 * processes started here can starve either side for longer, and then this test fails, as it should. With
 * {@code -Djrdma.idle=...} both processes' engine threads idle by that strategy.
 */
@Tag("slow")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ContentionTest {

    private static final String PARENT = "127.0.151.1";
    private static final String CHILD = "127.0.151.2";
    private static final long WRITE = 64L << 20;
    private static final int CHUNK = 64 << 10;
    private static final int DEPTH = 16;
    private static final int PINGS = 1_000;
    private static final int PING = 1024;
    private static final long PING_AT = WRITE; // the child's receive and send slots; the parent's likewise
    private static final long BUF = WRITE + 2L * ContentionPeerMain.SLOTS * PING;
    /**
     * The usual ACK timeout, 4.096 us * 2^14 = 67 ms; {@code -Dcontention.timeout=12} (16.8 ms) makes starvation
     * timeouts common enough to count them (docs/benchmarks/contention.md), and then this test fails.
     */
    private static final int TIMEOUT = Integer.getInteger("contention.timeout", 14);
    private static final Mtu MTU = Mtu.MTU_4096;
    private static final long BOUND_NS = TimeUnit.SECONDS.toNanos(120);
    /** Counters that only a loss, a rejection or a failure moves: all must stay 0 on both sides. */
    private static final Counter[] QUIET = {Counter.RCVD_SEQ_ERR, Counter.OUT_OF_SEQ_REQUEST, Counter.RCVD_RNR_ERR,
        Counter.SEND_RNR_ERR, Counter.RETRY_EXCEEDED_ERR, Counter.RETRY_RNR_EXCEEDED_ERR, Counter.RCVD_DROPPED,
        Counter.SEND_ERR, Counter.QP_FATAL, Counter.CQ_OVERRUN};
    /** Starvation timeouts a side may have in each phase (see the class comment). */
    private static final int TIMEOUTS_PER_PHASE = 1;

    private final BlockingQueue<String> from = new LinkedBlockingQueue<>();
    private PrintStream to;
    private Peer parent; // drives while waiting for the child (invoker mode)
    private Threading threading;

    @ParameterizedTest
    @EnumSource(Threading.class)
    void aTransferBesideBusyProcessesCompletesIntactWithoutRetransmission(Threading threading) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> hogs = new ArrayList<>();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED"));
        String idle = System.getProperty("jrdma.idle");
        if (idle != null) {
            command.add("-Djrdma.idle=" + idle); // the child's engine thread idles as this process's do
        }
        command.addAll(List.of("-cp", ChildClassPath.get(), ContentionPeerMain.class.getName(),
                CHILD, Long.toString(BUF), threading.name(), Integer.toString(TIMEOUT), MTU.name()));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        this.threading = threading;
        Thread.ofPlatform().daemon().name("child-stdout").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    from.add(line.trim());
                }
            } catch (IOException e) {
                // the child is gone
            }
            from.add("(child gone)");
        });
        try (Peer me = new Peer(PARENT, threading, NanoClock.SYSTEM, BUF, Peer.ALL_ACCESS, Peer.defaultCap())) {
            parent = me;
            to = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
            String[] peer = answer().split(" ");
            int peerRkey = Integer.parseInt(peer[1]);
            long peerAddr = Long.parseLong(peer[2]);
            Peer.Link link = new Peer.Link();
            link.timeout = TIMEOUT;
            link.mtu = MTU;
            me.connect(Integer.parseInt(peer[0]), Gid.parse(peer[3]), link);
            to.println(me.qp.qpNum() + " " + me.mr.rkey() + " " + me.mr.address() + " " + me.ctx.queryGid(1, 1));
            assertEquals("ready", answer());
            long crc = SoakPeerMain.fill(me.buf, 0, WRITE, 42);

            int cores = Runtime.getRuntime().availableProcessors();
            for (int i = 0; i < cores; i++) { // each ends on its own after 300 s should this JVM die first
                hogs.add(new ProcessBuilder("bash", "-c", "while [ $SECONDS -lt 300 ]; do :; done").start());
            }
            String load = loadAverage();
            long start = System.nanoTime();
            long deadline = start + BOUND_NS;
            write(me, peerAddr, peerRkey, deadline);
            long wrote = System.nanoTime();
            assertEquals(Long.toHexString(crc), ask("crc 0 " + WRITE), "the 64 MiB arrived intact");
            long writeTimeouts = me.ctx.counters().get(Counter.COMPLETER_RETRY_ERR);
            String afterWrite = retries(me.ctx.counters()) + " / child " + retries(parse(ask("stats")));
            long[] rtt = pingPong(me, deadline);
            long end = System.nanoTime();
            String pong = answer();
            assertTrue(pong.startsWith("pong ok " + PINGS + " "), "the child got every message once, in order: "
                    + pong);
            Duration hogCpu = hogs.stream().map(h -> h.info().totalCpuDuration().orElse(Duration.ZERO))
                    .reduce(Duration.ZERO, Duration::plus);
            stop(hogs);

            String childStats = ask("stats");
            Map<String, Long> theirs = parse(childStats);
            Counters mine = me.ctx.counters();
            Arrays.sort(rtt);
            String figures = String.format("contention, %s, %d busy processes (%.1f s CPU), load average before %s:"
                    + " WRITE %.0f MiB/s (%.2f s), %d ping-pongs of %d B in %.2f s (median %.3f ms, max %.2f ms);"
                    + " ACK timeout %.1f ms; after the WRITEs parent %s; at the end parent %s / child %s"
                    + "%n  child's %s%n  parent: %s%n  child:  %s", threading, cores, hogCpu.toMillis() / 1e3, load,
                    (WRITE >> 20) / ((wrote - start) / 1e9), (wrote - start) / 1e9, PINGS, PING, (end - wrote) / 1e9,
                    rtt[PINGS / 2] / 1e6, rtt[PINGS - 1] / 1e6, Requester.ackTimeoutNs(TIMEOUT) / 1e6, afterWrite,
                    retries(mine), retries(theirs),
                    pong.substring(pong.indexOf('|') + 2), mine, childStats);
            System.out.println(figures);

            assertTrue(end - start < BOUND_NS, figures);
            assertNull(me.ctx.lastEngineFailure(), figures);
            assertTrue(childStats.contains("failure=null") && childStats.endsWith("state=RTS"), figures);
            for (Counter c : QUIET) {
                assertEquals(0, mine.get(c), () -> "parent " + c.rxeName() + ": " + figures);
                assertEquals(0, theirs.get(c.rxeName()), () -> "child " + c.rxeName() + ": " + figures);
            }
            // starvation only, and bounded: every packet sent again had arrived, and few timeouts caused them
            String retry = Counter.COMPLETER_RETRY_ERR.rxeName();
            assertEquals(mine.get(Counter.RETRANSMITTED_PKTS), theirs.get(Counter.DUPLICATE_REQUEST.rxeName()),
                    () -> "the parent's retransmissions, each a duplicate at the child: " + figures);
            assertEquals(theirs.get(Counter.RETRANSMITTED_PKTS.rxeName()), mine.get(Counter.DUPLICATE_REQUEST),
                    () -> "the child's retransmissions, each a duplicate at the parent: " + figures);
            assertTrue(writeTimeouts <= TIMEOUTS_PER_PHASE, () -> "parent timeouts in the WRITEs: " + figures);
            assertTrue(mine.get(Counter.COMPLETER_RETRY_ERR) - writeTimeouts <= TIMEOUTS_PER_PHASE,
                    () -> "parent timeouts in the ping-pong: " + figures);
            assertTrue(theirs.get(retry) <= TIMEOUTS_PER_PHASE, () -> "child timeouts (ping-pong): " + figures);
            // and nothing was lost on the way: every datagram one side sent, the other received
            assertEquals(mine.get(Counter.PORT_XMIT_PACKETS), theirs.get(Counter.PORT_RCV_PACKETS.rxeName()), figures);
            assertEquals(mine.get(Counter.PORT_RCV_PACKETS), theirs.get(Counter.PORT_XMIT_PACKETS.rxeName()), figures);

            assertEquals("bye", ask("quit"));
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
        } finally {
            stop(hogs);
            child.destroyForcibly();
        }
    }

    /** {@value #WRITE} bytes by WRITEs of {@value #CHUNK}, {@value #DEPTH} at a time, each completing in order. */
    private static void write(Peer me, long peerAddr, int peerRkey, long deadline) {
        int chunks = (int) (WRITE / CHUNK);
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED);
        int posted = 0;
        int done = 0;
        while (done < chunks) {
            while (posted < chunks && posted - done < DEPTH) {
                long off = (long) posted * CHUNK;
                me.qp.postSend(wr.wrId(posted++).sg(new Sge(me.addr(off), CHUNK, me.mr.lkey()))
                        .remote(peerAddr + off, peerRkey));
            }
            int k = me.cq.poll(wcs);
            for (int j = 0; j < k; j++) {
                WorkCompletion wc = wcs[j];
                assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + " " + me.ctx.counters());
                assertEquals(done++, wc.wrId(), "WRITEs complete once, in order");
                assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
            }
            if (k == 0) {
                int d = done;
                assertTrue(System.nanoTime() < deadline, () -> done(me, "WRITE", d, chunks));
                Thread.onSpinWait();
            }
        }
    }

    /**
     * {@value #PINGS} messages of {@value #PING} bytes, each carrying its number and a pattern, echoed by the child
     * and compared byte for byte; returns each round trip's time.
     */
    private long[] pingPong(Peer me, long deadline) throws Exception {
        int slots = ContentionPeerMain.SLOTS;
        for (int s = 0; s < slots; s++) {
            me.qp.postRecv(new RecvWr().wrId(s).sg(new Sge(me.addr(PING_AT + (long) s * PING), PING, me.mr.lkey())));
        }
        assertEquals("ready", ask("pong " + PINGS + " " + PING + " " + PING_AT));
        long sendAt = PING_AT + (long) slots * PING;
        long[] rtt = new long[PINGS];
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
        int sendsDone = 0;
        for (int i = 0; i < PINGS; i++) {
            long slot = sendAt + (long) (i % slots) * PING;
            while (i - sendsDone >= slots) { // the slot is free once its SEND completed
                sendsDone += poll(me, wcs, deadline, true);
            }
            SoakPeerMain.fill(me.buf, slot, PING, 1000 + i);
            me.buf.set(ValueLayout.JAVA_LONG_UNALIGNED, slot, i);
            long t0 = System.nanoTime();
            me.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(me.addr(slot), PING, me.mr.lkey())));
            while (true) {
                int k = poll(me, wcs, deadline, false);
                if (k == 1 && wcs[0].opcode() == WcOpcode.SEND) {
                    sendsDone++;
                } else if (k == 1) {
                    rtt[i] = System.nanoTime() - t0;
                    WorkCompletion wc = wcs[0];
                    long at = PING_AT + wc.wrId() * PING;
                    assertEquals(PING, wc.byteLen());
                    assertEquals(-1, me.buf.asSlice(at, PING).mismatch(me.buf.asSlice(slot, PING)),
                            "message " + i + " came back as sent");
                    me.qp.postRecv(new RecvWr().wrId(wc.wrId()).sg(new Sge(me.addr(at), PING, me.mr.lkey())));
                    break;
                }
            }
        }
        while (sendsDone < PINGS) {
            sendsDone += poll(me, wcs, deadline, true);
        }
        return rtt;
    }

    /** One completion or none (spinning), successful; {@code sendOnly}: it must be a SEND's. */
    private static int poll(Peer me, WorkCompletion[] wcs, long deadline, boolean sendOnly) {
        int k = me.cq.poll(wcs, 1);
        if (k == 1) {
            WorkCompletion wc = wcs[0];
            assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + " " + me.ctx.counters());
            assertTrue(!sendOnly || wc.opcode() == WcOpcode.SEND, wc::toString);
        } else {
            assertTrue(System.nanoTime() < deadline, () -> done(me, "ping-pong", 0, PINGS));
            Thread.onSpinWait();
        }
        return k;
    }

    private static String done(Peer me, String what, int done, int of) {
        return what + " not done within " + TimeUnit.NANOSECONDS.toSeconds(BOUND_NS) + " s (" + done + " of " + of
                + "); " + me.ctx.counters();
    }

    private String ask(String command) throws Exception {
        to.println(command);
        return answer();
    }

    /**
     * The child's next line, within a minute. An invoker-mode device is driven every millisecond meanwhile (as
     * README tells such programs to): the ACK its last poll held for an answer must still go out.
     */
    private String answer() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String line = from.poll(1, TimeUnit.MILLISECONDS);
            if (line != null) {
                return line;
            }
            if (threading == Threading.INVOKER && parent != null) {
                parent.ctx.progress();
            }
        }
        return "(no answer within 60 s)";
    }

    /** The retransmission counters, briefly. */
    private static String retries(Counters c) {
        return "timeouts " + c.get(Counter.COMPLETER_RETRY_ERR) + ", retransmitted "
                + c.get(Counter.RETRANSMITTED_PKTS);
    }

    private static String retries(Map<String, Long> c) {
        return "timeouts " + c.get(Counter.COMPLETER_RETRY_ERR.rxeName()) + ", retransmitted "
                + c.get(Counter.RETRANSMITTED_PKTS.rxeName());
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    private static Map<String, Long> parse(String stats) {
        Map<String, Long> m = new LinkedHashMap<>();
        int bar = stats.indexOf(" | ");
        for (String kv : (bar < 0 ? stats : stats.substring(0, bar)).trim().split(" ")) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
        return m;
    }

    private static void stop(List<Process> hogs) throws InterruptedException {
        for (Process h : hogs) {
            h.destroyForcibly();
        }
        for (Process h : hogs) {
            h.waitFor(10, TimeUnit.SECONDS);
        }
        hogs.clear();
    }
}

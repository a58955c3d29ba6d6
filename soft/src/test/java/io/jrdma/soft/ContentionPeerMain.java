package io.jrdma.soft;

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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The other process of {@link ContentionTest}: a soft device on args[0] with a buffer of args[1] bytes, threading
 * args[2], connected with ACK timeout code args[3] and path MTU args[4]. Prints "qpn rkey addr gid", reads the
 * parent's, connects, prints "ready" and obeys commands: {@code crc OFF LEN}; {@code pong N LEN OFF} (posts
 * {@value #SLOTS} receives of LEN bytes from OFF, prints "ready", then sends each of N messages back as it came,
 * checking it carries its sequence number in its first 8 bytes; prints "pong ok N" or what went wrong);
 * {@code stats}; {@code quit}. While it waits for a command its thread blocks (the engine thread answers the
 * peer), except in invoker mode, where it drives the device every millisecond meanwhile, as README tells such
 * programs to.
 */
public final class ContentionPeerMain {

    static final int SLOTS = 16;

    private ContentionPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("stdin").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    commands.add(line.trim());
                }
            } catch (IOException e) {
                // the parent is gone
            }
            commands.add("quit");
        });
        long size = Long.parseLong(args[1]);
        Threading threading = Threading.valueOf(args[2]);
        Peer.Link link = new Peer.Link();
        link.timeout = Integer.parseInt(args[3]);
        link.mtu = Mtu.valueOf(args[4]);
        try (Peer p = new Peer(args[0], threading, NanoClock.SYSTEM, size, Peer.ALL_ACCESS, Peer.defaultCap())) {
            out.println(p.qp.qpNum() + " " + p.mr.rkey() + " " + p.mr.address() + " " + p.ctx.queryGid(1, 1));
            String[] peer = next(commands, p, threading).split(" ");
            p.connect(Integer.parseInt(peer[0]), Gid.parse(peer[3]), link);
            out.println("ready");
            while (true) {
                String[] c = next(commands, p, threading).split(" ");
                switch (c[0]) {
                    case "crc" -> out.println(Long.toHexString(SoakPeerMain.crc(p.buf, Long.parseLong(c[1]),
                            Long.parseLong(c[2]))));
                    case "pong" -> out.println(pong(p, Integer.parseInt(c[1]), Integer.parseInt(c[2]),
                            Long.parseLong(c[3]), out));
                    case "stats" -> out.println(p.ctx.counters() + " | failure=" + p.ctx.lastEngineFailure()
                            + " | state=" + p.qp.state());
                    case "quit" -> {
                        out.println("bye");
                        return;
                    }
                    default -> out.println("unknown " + String.join(" ", c));
                }
            }
        }
    }

    /** The next command: waited for by blocking, or in invoker mode by driving the device every millisecond. */
    private static String next(BlockingQueue<String> commands, Peer p, Threading threading)
            throws InterruptedException {
        if (threading != Threading.INVOKER) {
            return commands.take();
        }
        String line;
        while ((line = commands.poll(1, TimeUnit.MILLISECONDS)) == null) {
            p.ctx.progress();
        }
        return line;
    }

    /**
     * Echoes {@code n} messages of {@code len} bytes: receives rotate over {@value #SLOTS} slots at {@code off},
     * each message is copied to one of {@value #SLOTS} send slots behind them and sent back from there.
     */
    private static String pong(Peer p, int n, int len, long off, PrintStream out) {
        long sendAt = off + (long) SLOTS * len;
        for (int s = 0; s < SLOTS; s++) {
            p.qp.postRecv(new RecvWr().wrId(s).sg(new Sge(p.addr(off + (long) s * len), len, p.mr.lkey())));
        }
        long[] byEngine = new long[2]; // packets handled by the engine thread, by the application's
        p.ctx.tap((tx, pkt, o, l, si, sp, di, dp) -> byEngine[Thread.currentThread().getName()
                .startsWith("jrdma-engine-") ? 0 : 1]++); // under the device lock: no race
        long takeovers = p.ctx.engine.takeovers();
        long waitedForCpu = runQueueWaitNs();
        long longestGap = 0;
        long lastPoll = System.nanoTime();
        out.println("ready");
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        long received = 0;
        long sent = 0;
        long sendsDone = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (received < n || sendsDone < sent) {
            long now = System.nanoTime();
            longestGap = Math.max(longestGap, now - lastPoll);
            lastPoll = now;
            int k = p.cq.poll(wcs);
            for (int j = 0; j < k; j++) {
                WorkCompletion wc = wcs[j];
                if (wc.status() != WcStatus.SUCCESS) {
                    return "pong ERROR " + wc + " after " + received + " | " + p.ctx.counters();
                }
                if (wc.opcode() == WcOpcode.SEND) {
                    sendsDone++;
                    continue;
                }
                long at = off + wc.wrId() * len;
                long seq = p.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                if (wc.byteLen() != len || seq != received) {
                    return "pong BAD message " + received + ": " + wc.byteLen() + " bytes, sequence " + seq;
                }
                while (sent - sendsDone >= SLOTS) { // its send slot is free once its SEND completed
                    sendsDone += sendsIn(p, wcs);
                }
                long slot = sendAt + (sent % SLOTS) * len;
                p.buf.asSlice(slot, len).copyFrom(p.buf.asSlice(at, len));
                p.qp.postRecv(new RecvWr().wrId(wc.wrId()).sg(new Sge(p.addr(at), len, p.mr.lkey())));
                p.qp.postSend(new SendWr().wrId(sent++).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(p.addr(slot), len, p.mr.lkey())));
                received++;
            }
            if (k > 0) {
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            } else if (System.nanoTime() > deadline) {
                return "pong TIMEOUT after " + received + " | " + p.ctx.counters();
            } else {
                Thread.onSpinWait();
            }
        }
        p.ctx.tap(null);
        return String.format("pong ok %d | application's longest gap between polls %.1f ms, its time runnable but "
                + "waiting for a CPU %.1f ms; engine takeovers %d, packets handled by the engine thread %d, by the "
                + "application's %d", received, longestGap / 1e6, (runQueueWaitNs() - waitedForCpu) / 1e6,
                p.ctx.engine.takeovers() - takeovers, byEngine[0], byEngine[1]);
    }

    /** How long this thread has been runnable but waiting for a CPU (Linux schedstat), or 0 where unknown. */
    private static long runQueueWaitNs() {
        try {
            return Long.parseLong(Files.readString(Path.of("/proc/thread-self/schedstat")).trim().split(" ")[1]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Polls for send completions only (no receive is outstanding beyond what the loop handles). */
    private static int sendsIn(Peer p, WorkCompletion[] wcs) {
        int k = p.cq.poll(wcs, 1);
        if (k == 1 && (wcs[0].status() != WcStatus.SUCCESS || wcs[0].opcode() != WcOpcode.SEND)) {
            throw new IllegalStateException("unexpected completion while waiting for a send slot: " + wcs[0]);
        }
        return k;
    }
}

package io.jrdma.soft;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The other process of {@link SoakTest}: a soft device (dedicated engine thread) on args[0] with a buffer of
 * args[1] bytes, whose faults come from the system property {@code jrdma.faults}. Prints "qpn rkey addr gid",
 * reads the parent's, connects (ACK timeout code args[2], path MTU args[3]) and obeys commands:
 * {@code fill OFF LEN SEED} (random bytes, prints their CRC), {@code crc OFF LEN}, {@code recv N SIZE OFF}
 * (posts N receives of SIZE bytes from OFF), {@code await N} (prints "wrId:status:byteLen:crc" of N receive
 * completions, the CRC over the bytes received), {@code stats} (counters, engine failure, heap, QP state, link
 * class) and {@code quit}. With {@code -Djrdma.nio=true} its device runs on NIO channels.
 */
public final class SoakPeerMain {

    private SoakPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long size = Long.parseLong(args[1]);
        Peer.Link link = new Peer.Link();
        link.timeout = Integer.parseInt(args[2]);
        link.mtu = io.jrdma.verbs.Mtu.valueOf(args[3]);
        try (Peer p = new Peer(args[0], Threading.DEDICATED, NanoClock.SYSTEM, size, Peer.ALL_ACCESS,
                Peer.defaultCap(), FaultConfig.fromEnvironment(), LinkKind.fromProperties())) {
            out.println(p.qp.qpNum() + " " + p.mr.rkey() + " " + p.mr.address() + " " + p.ctx.queryGid(1, 1));
            String[] peer = in.readLine().trim().split(" ");
            p.connect(Integer.parseInt(peer[0]), Gid.parse(peer[3]), link);
            out.println("ready");
            WorkCompletion[] wcs = {new WorkCompletion()};
            long[] recvOff = new long[4096];
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] c = line.trim().split(" ");
                switch (c[0]) {
                    case "fill" -> out.println(Long.toHexString(fill(p.buf, Long.parseLong(c[1]),
                            Long.parseLong(c[2]), Long.parseLong(c[3]))));
                    case "crc" -> out.println(Long.toHexString(crc(p.buf, Long.parseLong(c[1]),
                            Long.parseLong(c[2]))));
                    case "recv" -> {
                        int n = Integer.parseInt(c[1]);
                        int each = Integer.parseInt(c[2]);
                        long off = Long.parseLong(c[3]);
                        for (int i = 0; i < n; i++) {
                            recvOff[i] = off + (long) i * each;
                            p.qp.postRecv(new RecvWr().wrId(i).sg(new Sge(p.addr(recvOff[i]), each, p.mr.lkey())));
                        }
                        out.println("ok");
                    }
                    case "await" -> {
                        int n = Integer.parseInt(c[1]);
                        StringBuilder sb = new StringBuilder();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        for (int got = 0; got < n; ) {
                            if (p.cq.poll(wcs) == 1) {
                                got++;
                                WorkCompletion wc = wcs[0];
                                long crc = wc.status() == WcStatus.SUCCESS
                                        ? crc(p.buf, recvOff[(int) wc.wrId()], wc.byteLen()) : 0;
                                sb.append(wc.wrId()).append(':').append(wc.status()).append(':')
                                        .append(wc.byteLen()).append(':').append(Long.toHexString(crc)).append(' ');
                            } else if (System.nanoTime() > deadline) {
                                sb.append("TIMEOUT ").append(p.ctx.counters());
                                break;
                            } else {
                                Thread.onSpinWait();
                            }
                        }
                        WorkCompletion extra = new WorkCompletion();
                        if (p.cq.poll(new WorkCompletion[] {extra}) == 1) {
                            sb.append("EXTRA ").append(extra);
                        }
                        out.println(sb.toString().trim());
                    }
                    case "stats" -> out.println(p.ctx.counters() + " | failure=" + p.ctx.lastEngineFailure()
                            + " | heap=" + usedHeap() + " | state=" + p.qp.state() + " | link="
                            + LinkKind.wire(p.ctx.link).getClass().getSimpleName());
                    case "quit" -> {
                        out.println("bye");
                        return;
                    }
                    default -> out.println("unknown " + line);
                }
            }
        }
    }

    static long usedHeap() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Fills {@code [off, off + len)} with bytes from {@code seed}; returns their CRC. */
    static long fill(MemorySegment s, long off, long len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        long end = off + len;
        long at = off;
        for (; at + 8 <= end; at += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, r.nextLong());
        }
        for (; at < end; at++) {
            s.set(ValueLayout.JAVA_BYTE, at, (byte) r.nextInt());
        }
        return crc(s, off, len);
    }

    static long crc(MemorySegment s, long off, long len) {
        CRC32 c = new CRC32();
        c.update(s.asSlice(off, len).asByteBuffer());
        return c.getValue();
    }
}

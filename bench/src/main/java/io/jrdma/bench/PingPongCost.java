package io.jrdma.bench;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * What a 2-byte ping-pong costs the CPU, with no waiting in it: one thread drives both ends, so a round trip is
 * the sum of the work of both hops (two sends, two receives and whatever runs around them). jrdma (an RC SEND each
 * way between two soft devices, every 16th signaled) against a pair of connected non-blocking NIO datagram
 * channels, in the same JVM, one after the other. For a profile: run it under {@code perf record -g} with
 * {@code -XX:+PreserveFramePointer}.
 *
 * <p>The third argument picks what runs: {@code both} (the default), {@code jrdma} (only the jrdma ping-pong, for a
 * profile without the UDP half in it), {@code udp} (only the NIO UDP ping-pong: the Java baseline that
 * {@code bench/probes/floor.sh} sets the kernel's floor against), or {@code empty} (what one poll costs when nothing
 * has arrived: a jrdma CQ poll, which runs an engine pass with an empty receive, against an empty non-blocking UDP
 * read; the first argument is then the number of polls).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.jrdma.bench.PingPongCost \
 *     [round trips] [rounds] [both|jrdma|udp|empty]
 * </pre>
 */
public final class PingPongCost {

    private PingPongCost() {
    }

    public static void main(String[] args) throws IOException {
        long trips = args.length > 0 ? Long.parseLong(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String mode = args.length > 2 ? args[2] : "both";
        switch (mode) {
            case "both" -> {
                for (int r = 0; r < rounds; r++) {
                    double j = jrdma(trips);
                    double u = udp(trips);
                    System.out.printf("round %d: jrdma %.0f ns, NIO UDP %.0f ns per round trip, ratio %.2f%n", r + 1,
                            j, u, j / u);
                }
            }
            case "jrdma" -> {
                for (int r = 0; r < rounds; r++) {
                    System.out.printf("round %d: jrdma %.0f ns per round trip%n", r + 1, jrdma(trips));
                }
            }
            case "udp" -> {
                for (int r = 0; r < rounds; r++) {
                    System.out.printf("round %d: NIO UDP %.0f ns per round trip%n", r + 1, udp(trips));
                }
            }
            case "empty" -> emptyPolls(trips, rounds);
            default -> throw new IllegalArgumentException("mode must be both, jrdma, udp or empty, not " + mode);
        }
    }

    /** What a poll that finds nothing costs: a jrdma CQ poll (an engine pass) against a non-blocking UDP read. */
    private static void emptyPolls(long polls, int rounds) throws IOException {
        try (RcPair p = RcPair.open("127.0.61.1", "127.0.61.2"); DatagramChannel a = DatagramChannel.open();
                DatagramChannel b = DatagramChannel.open()) {
            a.bind(new InetSocketAddress("127.0.61.3", 0));
            b.bind(new InetSocketAddress("127.0.61.4", 0));
            a.connect(b.getLocalAddress());
            a.configureBlocking(false);
            ByteBuffer buf = ByteBuffer.allocateDirect(64);
            for (int r = 0; r < rounds; r++) {
                long found = 0;
                long t0 = System.nanoTime();
                for (long i = 0; i < polls; i++) {
                    found += p.a.poll(1);
                }
                long t1 = System.nanoTime();
                for (long i = 0; i < polls; i++) {
                    buf.clear();
                    found += a.read(buf);
                }
                long t2 = System.nanoTime();
                if (found != 0) {
                    throw new IllegalStateException("a poll found something: " + found);
                }
                System.out.printf("round %d: empty jrdma poll %.0f ns, empty NIO UDP read %.0f ns%n", r + 1,
                        (t1 - t0) / (double) polls, (t2 - t1) / (double) polls);
            }
        }
    }

    private static double jrdma(long trips) {
        try (RcPair p = RcPair.open("127.0.61.1", "127.0.61.2")) {
            SendWr toB = new SendWr().opcode(WrOpcode.SEND).sg(new Sge(p.a.mr.address(), 2, p.a.mr.lkey()));
            SendWr toA = new SendWr().opcode(WrOpcode.SEND).sg(new Sge(p.b.mr.address(), 2, p.b.mr.lkey()));
            RecvWr recvA = new RecvWr().sg(new Sge(p.a.mr.address() + 1024, 2, p.a.mr.lkey()));
            RecvWr recvB = new RecvWr().sg(new Sge(p.b.mr.address() + 1024, 2, p.b.mr.lkey()));
            for (int i = 0; i < RcPair.QUEUE_DEPTH / 2; i++) {
                p.a.qp.postRecv(recvA);
                p.b.qp.postRecv(recvB);
            }
            long t0 = System.nanoTime();
            for (long i = 0; i < trips; i++) {
                int flags = SendFlags.INLINE | ((i & 15) == 15 ? SendFlags.SIGNALED : 0);
                p.a.qp.postSend(toB.sendFlags(flags));
                awaitReceive(p.b);
                p.b.qp.postRecv(recvB);
                p.b.qp.postSend(toA.sendFlags(flags));
                awaitReceive(p.a);
                p.a.qp.postRecv(recvA);
            }
            return (System.nanoTime() - t0) / (double) trips;
        }
    }

    /** Polls until a receive completes; send completions met on the way are only checked. */
    private static void awaitReceive(RcPair.Side s) {
        long deadline = System.nanoTime() + RcPair.TIMEOUT_NS;
        while (true) {
            int n = s.poll(1);
            if (n == 1 && s.wc[0].opcode() == WcOpcode.RECV) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no receive within " + RcPair.TIMEOUT_NS / 1_000_000 + " ms");
            }
        }
    }

    private static double udp(long trips) throws IOException {
        try (DatagramChannel a = DatagramChannel.open(); DatagramChannel b = DatagramChannel.open()) {
            a.bind(new InetSocketAddress("127.0.61.3", 0));
            b.bind(new InetSocketAddress("127.0.61.4", 0));
            a.connect(b.getLocalAddress());
            b.connect(a.getLocalAddress());
            a.configureBlocking(false);
            b.configureBlocking(false);
            ByteBuffer ba = ByteBuffer.allocateDirect(64);
            ByteBuffer bb = ByteBuffer.allocateDirect(64);
            long t0 = System.nanoTime();
            for (long i = 0; i < trips; i++) {
                ba.clear().limit(2);
                a.write(ba);
                bb.clear();
                awaitRead(b, bb);
                bb.flip();
                b.write(bb);
                ba.clear();
                awaitRead(a, ba);
            }
            return (System.nanoTime() - t0) / (double) trips;
        }
    }

    private static void awaitRead(DatagramChannel ch, ByteBuffer buf) throws IOException {
        long deadline = System.nanoTime() + RcPair.TIMEOUT_NS;
        while (ch.read(buf) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no datagram within " + RcPair.TIMEOUT_NS / 1_000_000 + " ms");
            }
        }
    }
}

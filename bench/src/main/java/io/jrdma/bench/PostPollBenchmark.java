package io.jrdma.bench;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What one small work request costs end to end through the soft device, in ns per WR: an RC pair of soft devices in
 * this process (invoker threading, 127.0.51.1 and 127.0.51.2), a batch of {@link #BATCH} 8-byte work requests
 * posted as one chain with only the last signaled, then both CQs polled (running both engines) until the batch is
 * complete. Per WR that includes the post, the requester building and sending the packet, the responder receiving,
 * checking and placing it, the ACKs, and the completion. Variants: RDMA WRITE with the data inline and from the
 * registered buffer, and SEND into receives posted by the responder in the same invocation.
 *
 * <p>The baseline is what the socket alone costs: the same batch of 8-byte datagrams sent from one non-blocking
 * {@link DatagramChannel} to another on loopback (127.0.51.3 to 127.0.51.4), then all received. The soft device
 * moves at least that per WR (one request datagram), plus ACK datagrams, so {@code WR / baseline} is the cost of
 * the device relative to one UDP send and receive.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PostPollBenchmark {

    /** Work requests (or datagrams) per invocation. */
    public static final int BATCH = 32;
    /** Bytes per work request. */
    public static final int MESSAGE = 8;
    /** Offset in the responder's buffer where the SEND receives land (the WRITEs land at 0). */
    public static final int RECV_OFFSET = 2048;

    /** The connected pair and the prebuilt work request chains. */
    @State(Scope.Thread)
    public static class Pair {
        /** Address of the requester's device. */
        static final String ADDRESS_A = "127.0.51.1";
        /** Address of the responder's device. */
        static final String ADDRESS_B = "127.0.51.2";

        RcPair pair;
        SendWr writeInline;
        SendWr write;
        SendWr send;
        RecvWr recv;

        /** Opens the devices, connects the QPs, fills the source bytes and builds the chains. */
        @Setup
        public void setup() {
            pair = RcPair.open(ADDRESS_A, ADDRESS_B);
            MemorySegment src = pair.a.buffer;
            for (int i = 0; i < BATCH * MESSAGE; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
            }
            writeInline = sendChain(WrOpcode.RDMA_WRITE, SendFlags.INLINE);
            write = sendChain(WrOpcode.RDMA_WRITE, 0);
            send = sendChain(WrOpcode.SEND, 0);
            recv = recvChain();
        }

        /** WR {@code i} sends bytes {@code [8i, 8i + 8)} of A's buffer; a WRITE to the same offset of B's. */
        private SendWr sendChain(WrOpcode opcode, int flags) {
            SendWr first = null;
            for (int i = BATCH - 1; i >= 0; i--) {
                int f = i == BATCH - 1 ? flags | SendFlags.SIGNALED : flags;
                SendWr wr = new SendWr().wrId(i).opcode(opcode).sendFlags(f)
                        .sg(new Sge(pair.a.mr.address() + (long) i * MESSAGE, MESSAGE, pair.a.mr.lkey()))
                        .next(first);
                if (opcode == WrOpcode.RDMA_WRITE) {
                    wr.remote(pair.b.mr.address() + (long) i * MESSAGE, pair.b.mr.rkey());
                }
                first = wr;
            }
            return first;
        }

        /** Receive {@code i} takes bytes {@code [RECV_OFFSET + 8i, +8)} of B's buffer. */
        private RecvWr recvChain() {
            RecvWr first = null;
            for (int i = BATCH - 1; i >= 0; i--) {
                first = new RecvWr().wrId(i)
                        .sg(new Sge(pair.b.mr.address() + RECV_OFFSET + (long) i * MESSAGE, MESSAGE, pair.b.mr.lkey()))
                        .next(first);
            }
            return first;
        }

        /** Closes the QPs, regions and devices. */
        @TearDown
        public void tearDown() {
            if (pair != null) {
                pair.close();
                pair = null;
            }
        }
    }

    /** Two datagram channels on loopback for the baseline. */
    @State(Scope.Thread)
    public static class Udp {
        /** Address of the sending channel. */
        static final String ADDRESS_TX = "127.0.51.3";
        /** Address of the receiving channel. */
        static final String ADDRESS_RX = "127.0.51.4";

        DatagramChannel tx;
        DatagramChannel rx;
        InetSocketAddress target;
        final ByteBuffer out = ByteBuffer.allocateDirect(MESSAGE);
        final ByteBuffer in = ByteBuffer.allocateDirect(64);

        /** Binds both channels (ephemeral ports), non-blocking, as the soft device's link is. */
        @Setup
        public void setup() {
            try {
                tx = DatagramChannel.open(StandardProtocolFamily.INET);
                tx.bind(new InetSocketAddress(ADDRESS_TX, 0)).configureBlocking(false);
                rx = DatagramChannel.open(StandardProtocolFamily.INET);
                rx.bind(new InetSocketAddress(ADDRESS_RX, 0)).configureBlocking(false);
                target = (InetSocketAddress) rx.getLocalAddress();
            } catch (IOException e) {
                tearDown();
                throw new UncheckedIOException("cannot bind the baseline's datagram channels", e);
            }
            for (int i = 0; i < MESSAGE; i++) {
                out.put(i, (byte) (i + 1));
            }
        }

        /** Sends {@link #BATCH} datagrams, then receives them; returns the bytes received. */
        int roundTrip() throws IOException {
            for (int i = 0; i < BATCH; i++) {
                out.clear();
                if (tx.send(out, target) != MESSAGE) {
                    throw new IllegalStateException("the kernel did not take datagram " + i);
                }
            }
            int bytes = 0;
            long deadline = System.nanoTime() + RcPair.TIMEOUT_NS;
            for (int i = 0; i < BATCH; i++) {
                in.clear();
                while (rx.receive(in) == null) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("datagram " + i + " of the batch did not arrive");
                    }
                }
                bytes += in.position();
            }
            return bytes;
        }

        /** Closes both channels. */
        @TearDown
        public void tearDown() {
            RcPair.closeAll(tx, rx);
        }
    }

    /** RDMA WRITE of 8 bytes, inline. Returns the wrId of the signaled completion. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long writeInline(Pair p) {
        p.pair.a.qp.postSend(p.writeInline);
        p.pair.await(1, 0);
        return p.pair.a.wc[0].wrId();
    }

    /** RDMA WRITE of 8 bytes from the registered buffer. Returns the wrId of the signaled completion. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long write(Pair p) {
        p.pair.a.qp.postSend(p.write);
        p.pair.await(1, 0);
        return p.pair.a.wc[0].wrId();
    }

    /**
     * SEND of 8 bytes into a receive that the responder posts in the same invocation (receives posted first, as
     * a real responder keeps its queue stocked). Returns the bytes the receive completions report.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int sendRecv(Pair p) {
        p.pair.b.qp.postRecv(p.recv);
        p.pair.a.qp.postSend(p.send);
        return p.pair.await(1, BATCH);
    }

    /** Baseline: one 8-byte datagram sent and received on loopback, per WR. Returns the bytes received. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int baselineUdp(Udp u) throws IOException {
        return u.roundTrip();
    }
}

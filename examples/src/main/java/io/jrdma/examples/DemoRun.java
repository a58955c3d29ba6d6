package io.jrdma.examples;

import io.jrdma.soft.Counter;
import io.jrdma.soft.Counters;
import io.jrdma.soft.PacketTap;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.PacketFormatter;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;

/**
 * The packet-level demo behind {@code jrdma demo}: two soft RoCEv2 devices in one process (127.0.0.1 and 127.0.0.2,
 * with the soft device's default threading unless {@code jrdma.threading} / {@code JRDMA_THREADING} names one, see
 * {@link ThreadingSetting}) and one RC connection with path MTU 1024. It runs, in order, a 3000-byte
 * SEND/RECV (FIRST, MIDDLE, LAST packets), a SEND_WITH_IMM, a 2500-byte RDMA WRITE and a 2500-byte RDMA READ, and
 * prints every packet the first device sends and receives, every completion, a byte-for-byte check of the data and
 * finally both devices' counters.
 *
 * <p>The packet lines come from a tap on the first device's engine (its own thread or, while it drives the
 * engine, the caller's); they are queued and printed by the caller's thread after each operation's completions, so
 * the output is in a fixed order. Waiting for a completion drives both devices, as invoker threading needs.
 */
public final class DemoRun {

    /** The first device's address. */
    public static final String ADDRESS_A = "127.0.0.1";
    /** The second device's address. */
    public static final String ADDRESS_B = "127.0.0.2";

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Mtu PATH_MTU = Mtu.MTU_1024;
    private static final int PSN_A = 100;
    private static final int PSN_B = 5000;
    private static final int BUFFER_BYTES = 64 * 1024;
    private static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    private static final int SEND_BYTES = 3000;
    private static final int IMM_BYTES = 64;
    private static final int IMM_DATA = 0x1234abcd;
    private static final int WRITE_BYTES = 2500;
    private static final int READ_BYTES = 2500;
    // where each step's data lives in both buffers
    private static final long SEND_AT = 0;
    private static final long IMM_AT = 4096;
    private static final long WRITE_AT = 8192;
    private static final long READ_AT = 16384;

    private final PrintStream out;
    private final Queue<String> packets = new ConcurrentLinkedQueue<>();
    private final WorkCompletion wc = new WorkCompletion();
    private RcPeer a;
    private RcPeer b;

    private DemoRun(PrintStream out) {
        this.out = out;
    }

    /**
     * {@code java -p ... -m io.jrdma.examples/io.jrdma.examples.DemoRun [ADDRESS_A ADDRESS_B]} (or on the class
     * path): runs the demo, on 127.0.0.1 and 127.0.0.2 unless two addresses are given; exits 0 on success, 1 on any
     * failure, 2 on bad arguments.
     */
    public static void main(String[] args) {
        if (args.length != 0 && args.length != 2) {
            System.err.println("usage: DemoRun [ADDRESS_A ADDRESS_B]");
            System.exit(2);
        }
        System.exit(args.length == 2 ? run(System.out, args[0], args[1]) : run(System.out));
    }

    /** Runs the demo on 127.0.0.1 and 127.0.0.2; returns 0 on success, 1 on any failure. */
    public static int run(PrintStream out) {
        return run(out, ADDRESS_A, ADDRESS_B);
    }

    /** Runs the demo between soft devices on {@code addressA} and {@code addressB}; returns 0 or 1 as above. */
    public static int run(PrintStream out, String addressA, String addressB) {
        DemoRun demo = new DemoRun(out);
        try {
            demo.execute(addressA, addressB);
            out.println("demo OK");
            return 0;
        } catch (Exception e) {
            demo.flushPackets();
            out.println("demo FAILED: " + e);
            return 1;
        } finally {
            out.flush();
        }
    }

    private void execute(String addressA, String addressB) throws TimeoutException {
        try (RcPeer peerA = open("demo-a", addressA); RcPeer peerB = open("demo-b", addressB)) {
            a = peerA;
            b = peerB;
            String threading = ((SoftDevice) a.context().device()).threading().name().toLowerCase(Locale.ROOT);
            out.println("jrdma demo: RC queue pairs between soft RoCEv2 devices on " + addressA + " and " + addressB
                    + ", path MTU " + PATH_MTU.bytes() + ", " + threading + " engine");
            Endpoint ea = a.endpoint(PSN_A);
            Endpoint eb = b.endpoint(PSN_B);
            out.println("  A " + addressA + ": " + describe(ea));
            out.println("  B " + addressB + ": " + describe(eb));
            a.connect(ea, eb, PATH_MTU);
            b.connect(eb, ea, PATH_MTU);
            a.context().tap(tap(addressA));
            fill(a.buffer(), 3);
            fill(b.buffer(), 11);

            sendRecv();
            sendWithImm();
            rdmaWrite(eb);
            rdmaRead(eb);

            a.context().tap(null);
            out.println();
            out.println("counters:");
            out.println("  A " + addressA + ": " + nonZero(a.context().counters()));
            out.println("  B " + addressB + ": " + nonZero(b.context().counters()));
        }
    }

    private static RcPeer open(String name, String address) {
        SoftDevice device = ThreadingSetting.apply(SoftDevice.builder().name(name).address(address)).build();
        return RcPeer.open(device, BUFFER_BYTES, ACCESS, Access.REMOTE_WRITE | Access.REMOTE_READ);
    }

    private void sendRecv() throws TimeoutException {
        step("1. SEND/RECV " + SEND_BYTES + " bytes (" + packetsOf(SEND_BYTES) + " packets)");
        b.qp().postRecv(new RecvWr().wrId(11).sg(new Sge(b.mr().address() + SEND_AT, 4096, b.mr().lkey())));
        a.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.mr().address() + SEND_AT, SEND_BYTES, a.mr().lkey())));
        completion("A", a, WcOpcode.SEND);
        completion("B", b, WcOpcode.RECV);
        check(wc.byteLen() == SEND_BYTES, "receive byte_len " + wc.byteLen() + ", want " + SEND_BYTES);
        verify(a.buffer(), SEND_AT, b.buffer(), SEND_AT, SEND_BYTES);
    }

    private void sendWithImm() throws TimeoutException {
        step("2. SEND_WITH_IMM " + IMM_BYTES + " bytes, imm 0x" + Integer.toHexString(IMM_DATA));
        b.qp().postRecv(new RecvWr().wrId(12).sg(new Sge(b.mr().address() + IMM_AT, 4096, b.mr().lkey())));
        a.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .immData(IMM_DATA).sg(new Sge(a.mr().address() + IMM_AT, IMM_BYTES, a.mr().lkey())));
        completion("A", a, WcOpcode.SEND);
        completion("B", b, WcOpcode.RECV);
        check((wc.wcFlags() & WcFlags.WITH_IMM) != 0 && wc.immData() == IMM_DATA,
                "receive has imm 0x" + Integer.toHexString(wc.immData()) + " flags " + wc.wcFlags());
        check(wc.byteLen() == IMM_BYTES, "receive byte_len " + wc.byteLen() + ", want " + IMM_BYTES);
        verify(a.buffer(), IMM_AT, b.buffer(), IMM_AT, IMM_BYTES);
    }

    private void rdmaWrite(Endpoint eb) throws TimeoutException {
        step("3. RDMA WRITE " + WRITE_BYTES + " bytes (" + packetsOf(WRITE_BYTES) + " packets)");
        a.qp().postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.mr().address() + WRITE_AT, WRITE_BYTES, a.mr().lkey()))
                .remote(eb.vaddr() + WRITE_AT, eb.rkey()));
        completion("A", a, WcOpcode.RDMA_WRITE);
        verify(a.buffer(), WRITE_AT, b.buffer(), WRITE_AT, WRITE_BYTES);
    }

    private void rdmaRead(Endpoint eb) throws TimeoutException {
        step("4. RDMA READ " + READ_BYTES + " bytes (1 request, " + packetsOf(READ_BYTES) + " responses)");
        a.qp().postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.mr().address() + READ_AT, READ_BYTES, a.mr().lkey()))
                .remote(eb.vaddr() + READ_AT, eb.rkey()));
        completion("A", a, WcOpcode.RDMA_READ);
        check(wc.byteLen() == READ_BYTES, "read byte_len " + wc.byteLen() + ", want " + READ_BYTES);
        verify(b.buffer(), READ_AT, a.buffer(), READ_AT, READ_BYTES);
    }

    private void step(String title) {
        out.println();
        out.println("== " + title);
    }

    /** Waits for one successful completion of {@code opcode} on {@code peer} and prints it. */
    private void completion(String side, RcPeer peer, WcOpcode opcode) throws TimeoutException {
        RcPeer other = peer == a ? b : a;
        peer.awaitSuccess(wc, TIMEOUT, other.context()::progress); // in invoker threading nothing else drives it
        flushPackets();
        String imm = (wc.wcFlags() & WcFlags.WITH_IMM) != 0 ? "0x" + Integer.toHexString(wc.immData()) : "-";
        out.println("  completion " + side + ": wr_id=" + wc.wrId() + " status=" + wc.status() + " opcode="
                + wc.opcode() + " byte_len=" + Integer.toUnsignedString(wc.byteLen()) + " imm=" + imm);
        check(wc.opcode() == opcode, "completion opcode " + wc.opcode() + ", want " + opcode);
    }

    private void verify(MemorySegment src, long srcAt, MemorySegment dst, long dstAt, int bytes) {
        flushPackets();
        long at = MemorySegment.mismatch(src, srcAt, srcAt + bytes, dst, dstAt, dstAt + bytes);
        check(at < 0, "data differs at byte " + at);
        out.println("  data verified (" + bytes + " bytes)");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    /** Prints the packet lines the tap queued so far. */
    private void flushPackets() {
        for (String line; (line = packets.poll()) != null; ) {
            out.println(line);
        }
    }

    /** A tap that formats each packet of the device on {@code local} into {@link #packets}. */
    private PacketTap tap(String local) {
        return (transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort) -> {
            StringBuilder sb = new StringBuilder(160).append(local).append(transmit ? " -> " : " <- ");
            appendIp(sb, transmit ? dstIp : srcIp).append(' ');
            PacketFormatter.describe(packet, offset, length, sb);
            packets.add(sb.toString());
        };
    }

    private static StringBuilder appendIp(StringBuilder sb, int ip) {
        return sb.append(ip >>> 24).append('.').append((ip >>> 16) & 0xFF).append('.').append((ip >>> 8) & 0xFF)
                .append('.').append(ip & 0xFF);
    }

    private static String describe(Endpoint e) {
        return String.format("qpn 0x%06x, first PSN %d, GID %s, rkey 0x%x", e.qpn(), e.psn(),
                e.gid().toCompactString(), e.rkey());
    }

    private static int packetsOf(int bytes) {
        return (bytes + PATH_MTU.bytes() - 1) / PATH_MTU.bytes();
    }

    /** A recognisable pattern: byte i is {@code i * 7 + seed}. */
    private static void fill(MemorySegment m, int seed) {
        for (long i = 0; i < m.byteSize(); i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + seed));
        }
    }

    /** The counters that are not 0, in rxe's names; a clean run shows no retransmissions or errors. */
    private static String nonZero(Counters counters) {
        StringBuilder sb = new StringBuilder();
        for (Counter c : Counter.values()) {
            long v = counters.get(c);
            if (v != 0) {
                sb.append(c.rxeName()).append('=').append(v).append(' ');
            }
        }
        return sb.append("(all others 0)").toString();
    }
}

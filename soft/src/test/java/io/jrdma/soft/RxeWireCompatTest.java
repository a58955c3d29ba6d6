package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.PcapReader;
import io.jrdma.wire.Reth;
import io.jrdma.wire.RoceFrame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Byte compatibility with kernel rxe: for the first request of a given opcode in a capture of real rxe traffic
 * (vectors/rxe), the soft device is set up with the same QPNs and PSN and posts the same work request;
 * the packet it sends must equal rxe's byte for byte up to the ICRC (which covers IP addresses that differ), and
 * its UDP source port must be the one rxe derived from the same QPN pair. The responder's ACK is compared too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RxeWireCompatTest {

    /** A captured IB packet with the UDP source port it was sent from. */
    record Captured(byte[] ib, int srcPort) {
    }

    static Path vectors() {
        String override = System.getenv("JRDMA_VECTORS");
        if (override != null && Files.isDirectory(Path.of(override))) {
            return Path.of(override);
        }
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            for (Path c : new Path[] {d.resolve("vectors/rxe"), d.resolve("shared/vectors/rxe")}) {
                if (Files.isDirectory(c)) {
                    return c;
                }
            }
        }
        return fail("no vectors/rxe or shared/vectors/rxe above " + System.getProperty("user.dir"));
    }

    static List<Captured> packets(String file) throws IOException {
        List<Captured> out = new ArrayList<>();
        RoceFrame f = new RoceFrame();
        for (PcapReader.Record r : PcapReader.readAll(vectors().resolve(file))) {
            ByteBuffer b = ByteBuffer.wrap(r.data());
            if (f.parse(b, 0, r.data().length) && f.isRoce()) {
                byte[] ib = new byte[f.ibLength()];
                System.arraycopy(r.data(), f.ibOffset(), ib, 0, ib.length);
                out.add(new Captured(ib, f.srcPort()));
            }
        }
        return out;
    }

    static Captured first(List<Captured> all, int opcode) {
        for (Captured c : all) {
            if ((c.ib()[0] & 0xFF) == opcode) {
                return c;
            }
        }
        return fail("no packet with opcode " + opcode);
    }

    @ParameterizedTest(name = "{0}: opcode {1}")
    @CsvSource({
        "rc_pingpong_small.pcap, 4, SEND",
        "rc_pingpong_seg.pcap, 0, SEND",
        "ib_send_bw.pcap, 0, SEND",
        "ib_write_bw.pcap, 6, RDMA_WRITE",
        "ib_read_bw.pcap, 12, RDMA_READ",
        "imm.pcap, 5, SEND_WITH_IMM",
        "imm.pcap, 11, RDMA_WRITE_WITH_IMM",
        "rping.pcap, 10, RDMA_WRITE",
        "rping.pcap, 16, RDMA_READ",
    })
    void shouldSendWhatKernelRxeSends(String file, int opcode, WrOpcode wrOpcode) throws IOException {
        List<Captured> all = packets(file);
        Captured want = first(all, opcode == 16 ? 12 : opcode); // for rping READ: compare the request
        MemorySegment w = MemorySegment.ofArray(want.ib());
        Opcode op = Opcode.of(want.ib()[0] & 0xFF);
        int destQpn = Bth.destQp(w, 0);
        int psn = Bth.psn(w, 0);
        // the requester's own QPN: the destination of the responses coming back to it
        int srcQpn = -1;
        for (Captured c : all) {
            MemorySegment s = MemorySegment.ofArray(c.ib());
            Opcode o = Opcode.of(c.ib()[0] & 0xFF);
            if (o != null && o.isResponse() && Bth.psn(s, 0) == psn) {
                srcQpn = Bth.destQp(s, 0);
                break;
            }
        }
        assertNotNull(op);
        // message length: from RETH when there is one, else the SEND's payload (one packet or all of them)
        long length;
        long remoteAddr = 0;
        int rkey = 0;
        if (op.hasReth()) {
            remoteAddr = Reth.va(w, op.rethOffset());
            rkey = Reth.rkey(w, op.rethOffset());
            length = Reth.dmaLength(w, op.rethOffset()) & 0xFFFFFFFFL;
        } else {
            length = messageLength(all, op, destQpn, psn);
        }
        int payload = want.ib().length - op.headerLength() - 4 - Bth.padCount(w, 0);

        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.psn = psn;
        try (Peer a = new Peer("127.0.8.1", Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap());
             Peer b = new Peer("127.0.8.2", Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap())) {
            Gid bGid = b.ctx.queryGid(1, 1);
            a.connect(destQpn, bGid, link);
            List<byte[]> sent = new ArrayList<>();
            List<Integer> ports = new ArrayList<>();
            a.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
                if (tx) {
                    sent.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                    ports.add(sport);
                }
            });
            if (payload > 0) {
                MemorySegment.copy(w, op.headerLength(), a.buf, 0, payload); // rxe's first packet of payload
            }
            SendWr wr = new SendWr().wrId(1).opcode(wrOpcode).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), (int) length, a.mr.lkey())).remoteAddr(remoteAddr).rkey(rkey);
            if (op.hasImm()) {
                wr.immData(ImmDt.imm(w, op.immOffset()));
            }
            a.qp.postSend(wr);
            a.ctx.progress();
            assertEquals(false, sent.isEmpty(), "nothing was sent");
            byte[] ours = sent.getFirst();
            int n = want.ib().length - 4;
            assertEquals(want.ib().length, ours.length, "packet length");
            byte[] wantHead = java.util.Arrays.copyOf(want.ib(), n);
            byte[] ourHead = java.util.Arrays.copyOf(ours, n);
            assertArrayEquals(wantHead, ourHead, "packet bytes before the ICRC differ from kernel rxe's");
            if (srcQpn == a.qp.qpNum()) {
                assertEquals(want.srcPort(), (int) ports.getFirst(), "UDP source port derived from the QPN pair");
            }
        }
    }

    /** The SEND message length: the sum of the payloads of the packets from the one at {@code psn} to its end. */
    private static long messageLength(List<Captured> all, Opcode first, int destQpn, int psn) {
        long total = 0;
        int expect = psn;
        for (Captured c : all) {
            MemorySegment s = MemorySegment.ofArray(c.ib());
            Opcode o = Opcode.of(c.ib()[0] & 0xFF);
            if (o == null || !o.isSend() || Bth.destQp(s, 0) != destQpn || Bth.psn(s, 0) != expect) {
                continue;
            }
            total += c.ib().length - o.headerLength() - 4 - Bth.padCount(s, 0);
            expect = (expect + 1) & 0xFFFFFF;
            if (o.isEnd()) {
                return total;
            }
        }
        return fail("message at PSN " + psn + " has no end in the capture");
    }

    @org.junit.jupiter.api.Test
    void shouldAcknowledgeLikeKernelRxe() throws IOException {
        List<Captured> all = packets("rc_pingpong_small.pcap");
        Captured send = first(all, 4);
        Captured ack = first(all, 17);
        MemorySegment s = MemorySegment.ofArray(send.ib());
        int psn = Bth.psn(s, 0);
        int payload = send.ib().length - 12 - 4 - Bth.padCount(s, 0);
        Peer.Link link = new Peer.Link();
        link.psn = psn;
        try (Pair pair = new Pair("127.0.8.1", "127.0.8.2", Threading.INVOKER, new ManualClock(), 1 << 16,
                Access.LOCAL_WRITE | Access.REMOTE_WRITE, Peer.defaultCap(), link)) {
            assertEquals(0x11, pair.a.qp.qpNum(), "first QP of a device is 17, as in rxe");
            List<byte[]> acks = new ArrayList<>();
            List<Integer> ports = new ArrayList<>();
            pair.b.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
                if (tx) {
                    acks.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                    ports.add(sport);
                }
            });
            pair.b.qp.postRecv(new RecvWr().wrId(1).sg(new Sge(pair.b.addr(0), 4096, pair.b.mr.lkey())));
            MemorySegment.copy(s, 12, pair.a.buf, 0, payload);
            pair.a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(pair.a.addr(0), payload, pair.a.mr.lkey())));
            pair.await(pair.a.cq);
            byte[] ours = acks.getFirst();
            assertEquals(ack.ib().length, ours.length);
            assertArrayEquals(java.util.Arrays.copyOf(ack.ib(), 16), java.util.Arrays.copyOf(ours, 16),
                    "ACK BTH+AETH differ from kernel rxe's");
            assertEquals(ack.srcPort(), (int) ports.getFirst());
        }
    }
}

package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.soft.link.FaultyLink;
import io.jrdma.soft.link.ShmLink;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Icrc;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs of packets between devices of one host go through memory with their ICRCs left out ({@link ShmLink}): the
 * bytes still arrive intact, a receiver's tap still sees each packet as the wire would carry it (its ICRC filled in),
 * and a device whose link changes what it sends (fault injection) keeps its ICRCs, so what it corrupts is caught
 * (127.0.23.x).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmIcrcTest {

    private static final int CHUNK = 64 << 10;
    private static final int CHUNKS = 32;

    @Test
    void aRunWithoutIcrcsArrivesIntactAndTheReceiversTapSeesTheWiresPackets() {
        LinkKind.SHM.assume();
        try (Pair pair = new Pair("127.0.23.1", "127.0.23.2", Threading.INVOKER, LinkKind.SHM, CHUNK * CHUNKS)) {
            Icrc icrc = new Icrc();
            AtomicInteger seen = new AtomicInteger();
            AtomicInteger unsealed = new AtomicInteger();
            pair.b.ctx.tap((transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort) -> {
                if (!transmit) {
                    seen.incrementAndGet();
                    if (icrc.solveIpv4Id(srcIp, dstIp, srcPort, dstPort, packet.asByteBuffer(), (int) offset,
                            length) < 0) {
                        unsealed.incrementAndGet(); // no IPv4 ID makes its ICRC match: it was left zero
                    }
                }
            });
            SoakPeerMain.fill(pair.a.buf, 0, pair.a.buf.byteSize(), 7);
            for (int i = 0; i < CHUNKS; i++) {
                pair.a.qp.postSend(write(pair.a, pair.b, i));
                assertEquals(WcStatus.SUCCESS, pair.await(pair.a.cq).status());
            }
            assertEquals(-1, pair.a.buf.mismatch(pair.b.buf), "every byte written arrived");
            Counters a = pair.a.ctx.counters();
            Counters b = pair.b.ctx.counters();
            assertTrue(a.get(Counter.SHM_SENT) > 0, "the runs went through b's ring: " + a);
            assertTrue(seen.get() >= CHUNKS * 16, "b's tap saw every packet: " + seen);
            assertEquals(0, unsealed.get(), "every packet b's tap saw carried its ICRC");
            assertEquals(0, b.get(Counter.ICRC_ERR) + a.get(Counter.RETRANSMITTED_PKTS), b.toString());
        }
    }

    @Test
    void aDeviceThatCorruptsWhatItSendsKeepsItsIcrcsAndTheCorruptionIsCaught() {
        FaultConfig corrupt = FaultConfig.builder().seed(23).corrupt(0.02).build();
        Peer.Link link = new Peer.Link();
        link.timeout = 10; // 4 ms: each corrupted packet costs one timeout
        try (FaultPair pair = new FaultPair("127.0.23.3", "127.0.23.4", (long) CHUNK * CHUNKS, Peer.ALL_ACCESS, link,
                corrupt, FaultConfig.NONE, LinkKind.SHM.assume())) {
            FaultyLink fa = assertInstanceOf(FaultyLink.class, pair.a.ctx.link);
            assertInstanceOf(ShmLink.class, fa.inner());
            SoakPeerMain.fill(pair.a.buf, 0, pair.a.buf.byteSize(), 9);
            for (int i = 0; i < CHUNKS; i++) {
                pair.a.qp.postSend(write(pair.a, pair.b, i));
            }
            List<WorkCompletion> done = pair.completions(pair.a.cq, CHUNKS);
            for (WorkCompletion wc : done) {
                assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + "\n" + pair.counters());
            }
            String why = pair.counters();
            assertEquals(-1, pair.a.buf.mismatch(pair.b.buf), "no corrupted byte was taken in: " + why);
            assertTrue(pair.count(pair.a, Counter.SHM_SENT) > 0, "a's packets went through b's ring: " + why);
            long corrupted = fa.count(FaultyLink.Fault.CORRUPTED);
            long icrcErrors = pair.count(pair.b, Counter.ICRC_ERR);
            assertTrue(corrupted > 0, why);
            assertTrue(icrcErrors > 0 && icrcErrors <= corrupted, "b checked a's ICRCs: " + why);
        }
    }

    private static SendWr write(Peer from, Peer to, int i) {
        long off = (long) i * CHUNK;
        return new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(from.addr(off), CHUNK, from.mr.lkey())).remoteAddr(to.addr(off)).rkey(to.mr.rkey());
    }
}

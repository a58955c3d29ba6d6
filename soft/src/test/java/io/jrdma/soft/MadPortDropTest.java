package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Packets to QP 1 that no MAD port may see, between two soft devices on 127.0.165.x: sent while no port is open
 * (dropped, counted in mad_no_port, never given to a user QP), with a wrong Q_Key (qkey_viol_cntr), or with a payload
 * other than one 256-byte MAD (mad_len_dropped). A plain UD QP of the sender sends the odd payloads; its MADs reach
 * the port with its own QPN as the source.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MadPortDropTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private MadPeer a;
    private MadPeer b;
    private UserUd ua;
    private UserUd ub;

    /** A plain UD QP with the GSI Q_Key, a posted receive and a buffer. */
    private static final class UserUd implements AutoCloseable {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemorySegment buf;
        final MemoryRegion mr;
        final QueuePair qp;

        UserUd(MadPeer p) {
            pd = p.ctx.allocPd();
            cq = p.ctx.createCq(16);
            buf = p.arena.allocate(4096);
            mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            qp = pd.createQp(new QpInitAttr().qpType(QpType.UD).sendCq(cq).recvCq(cq)
                    .cap(new QpCap().maxSendWr(8).maxRecvWr(8).maxSendSge(1).maxRecvSge(1)));
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(MadPort.GSI_QKEY),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            qp.modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            qp.postRecv(new RecvWr().wrId(1).sg(new Sge(mr.address() + 2048, 2048, mr.lkey())));
        }

        /** Sends {@code length} bytes to QP 1 of {@code to} and waits for the send's completion. */
        void sendToQp1(MadPeer to, int length) {
            AddressHandle ah = pd.createAh(new AhAttr().isGlobal(true).dgid(to.gid()).sgidIndex(1).portNum(1));
            try {
                qp.postSend(new SendWr().wrId(2).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(mr.address(), length, mr.lkey())).ud(ah, 1, MadPort.GSI_QKEY));
                WorkCompletion[] wc = {new WorkCompletion()};
                long deadline = System.nanoTime() + MadPeer.WAIT_NS;
                while (cq.poll(wc) == 0 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                assertEquals(WcStatus.SUCCESS, wc[0].status());
                assertEquals(2, wc[0].wrId());
            } finally {
                ah.close();
            }
        }

        int completions() {
            return cq.poll(new WorkCompletion[] {new WorkCompletion()});
        }

        @Override
        public void close() {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
        }
    }

    @BeforeEach
    void open() {
        a = new MadPeer("127.0.165.11", Threading.ADAPTIVE);
        b = new MadPeer("127.0.165.12", Threading.ADAPTIVE);
        ua = new UserUd(a);
        ub = new UserUd(b);
    }

    @AfterEach
    void close() {
        for (AutoCloseable c : new AutoCloseable[] {ua, ub, a, b}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    @Test
    void shouldDropAndCountPacketsToQp1WhileNoPortIsOpenAndNeverGiveThemToAnotherQp() {
        try (MadPort pa = MadPort.open(a.ctx, 1)) {
            long dropped = b.count(Counter.RCVD_DROPPED);
            for (int i = 1; i <= 3; i++) {
                pa.send(a.mad(i), b.gsi());
                b.awaitCounter(Counter.MAD_NO_PORT, i);
            }
            ua.sendToQp1(b, MadPort.MAD_SIZE); // from a plain QP too
            b.awaitCounter(Counter.MAD_NO_PORT, 4);
            assertEquals(dropped, b.count(Counter.RCVD_DROPPED), "counted as mad_no_port only");
            assertEquals(0, ub.completions(), "B's UD QP (same Q_Key, receive posted) got nothing");
            try (MadPort pb = MadPort.open(b.ctx, 1)) {
                pa.send(a.mad(5), b.gsi());
                assertNotNull(pb.receive(b.in, WAIT));
                b.assertReceived(5);
                assertEquals(0, ub.completions(), "a MAD goes to the port, not to a user QP");
                assertEquals(4, b.count(Counter.MAD_NO_PORT));
            }
        }
    }

    @Test
    void shouldDropAndCountAWrongQkey() {
        try (MadPort pa = MadPort.open(a.ctx, 1); MadPort pb = MadPort.open(b.ctx, 1)) {
            long violations = b.count(Counter.QKEY_VIOLATIONS);
            pa.send(a.mad(1), new MadAddress(b.gid(), MadPort.GSI_QPN, 0x1234_5678, 0));
            b.awaitCounter(Counter.QKEY_VIOLATIONS, violations + 1);
            assertNull(pb.receive(b.in, Duration.ofMillis(100)), "not delivered");
            pa.send(a.mad(2), b.gsi());
            assertEquals(a.gsi(), pb.receive(b.in, WAIT), "the port goes on");
            b.assertReceived(2);
        }
    }

    @Test
    void shouldDropAndCountPayloadsThatAreNotOneMad() {
        try (MadPort pb = MadPort.open(b.ctx, 1)) {
            long before = b.count(Counter.MAD_LEN_DROPPED);
            int[] lengths = {0, 100, 252, 255, 260, 1024};
            for (int i = 0; i < lengths.length; i++) {
                ua.sendToQp1(b, lengths[i]);
                b.awaitCounter(Counter.MAD_LEN_DROPPED, before + i + 1);
            }
            assertNull(pb.receive(b.in, Duration.ofMillis(100)), "none delivered");
            ua.buf.asSlice(0, MadPort.MAD_SIZE).copyFrom(a.mad(9));
            ua.sendToQp1(b, MadPort.MAD_SIZE);
            MadAddress from = pb.receive(b.in, WAIT);
            assertNotNull(from);
            b.assertReceived(9);
            assertEquals(ua.qp.qpNum(), from.qpn(), "the source QP from the DETH");
            assertEquals(a.gid(), from.gid());
            assertEquals(before + lengths.length, b.count(Counter.MAD_LEN_DROPPED));
        }
    }
}

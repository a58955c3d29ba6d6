package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class QpConnectTest {

    private static final String ADDR_A = "127.0.3.41";
    private static final String ADDR_B = "127.0.3.42";

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldSetEveryOptionAndCarryAWrite() throws Exception {
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE;
        try (RcPeer a = RcPeer.open(device("qpc-a", ADDR_A), 4096, access, access);
             RcPeer b = RcPeer.open(device("qpc-b", ADDR_B), 4096, access, access)) {
            QpConnect.Options o = QpConnect.Options.DEFAULTS.withMtu(Mtu.MTU_2048).withGrh(RcPeer.GID_INDEX, 9)
                    .withRdAtomic(2, 3).withMinRnrTimer(5).withTimeout(11).withRetry(6, 4);
            Endpoint ea = a.endpoint(0x100);
            Endpoint eb = b.endpoint(0x200);
            QpConnect.connect(a.qp(), ea.address(), eb.address(), o);
            QpConnect.connect(b.qp(), eb.address(), ea.address(), o);

            QpAttr q = a.qp().query(new QpAttr());
            assertEquals(QpState.RTS, q.qpState());
            assertEquals(Mtu.MTU_2048, q.pathMtu());
            assertEquals(eb.qpn(), q.destQpNum());
            assertEquals(0x200, q.rqPsn());
            assertEquals(0x100, q.sqPsn());
            assertEquals(2, q.maxDestRdAtomic());
            assertEquals(3, q.maxRdAtomic());
            assertEquals(5, q.minRnrTimer());
            assertEquals(11, q.timeout());
            assertEquals(6, q.retryCnt());
            assertEquals(4, q.rnrRetry());
            assertTrue(q.ahAttr().isGlobal());
            assertEquals(eb.gid(), q.ahAttr().dgid());
            assertEquals(RcPeer.GID_INDEX, q.ahAttr().sgidIndex());
            assertEquals(9, q.ahAttr().hopLimit());

            a.buffer().set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9ABCL);
            a.qp().postSend(new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE)
                    .sg(new Sge(a.mr().address(), 8, a.mr().lkey())).remote(eb.vaddr(), eb.rkey())
                    .sendFlags(SendFlags.SIGNALED));
            a.awaitSuccess(new WorkCompletion(), Duration.ofSeconds(10));
            assertEquals(0x1234_5678_9ABCL, b.buffer().get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    void addressVectorCarriesAGrhOnlyWhenAsked() {
        QpConnect.Address remote = new QpConnect.Address(0x12, 0x34, 0x56, Gid.parse("::ffff:127.0.0.9"));
        AhAttr withGrh = QpConnect.Options.DEFAULTS.withPort(2).withSl(3).addressVector(remote);
        assertTrue(withGrh.isGlobal());
        assertEquals(remote.gid(), withGrh.dgid());
        assertEquals(64, withGrh.hopLimit());
        assertEquals(1, withGrh.sgidIndex());
        assertArrayEquals(new int[] {0x12, 3, 2}, new int[] {withGrh.dlid(), withGrh.sl(), withGrh.portNum()});
        AhAttr lidOnly = QpConnect.Options.DEFAULTS.withoutGrh().addressVector(remote);
        assertFalse(lidOnly.isGlobal());
        assertEquals(0x12, lidOnly.dlid());
    }

    @Test
    void shouldRejectOutOfRangeAddressesBadFlow() {
        assertThrows(IllegalArgumentException.class, () -> new QpConnect.Address(0, 1 << 24, 0, Gid.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new QpConnect.Address(0, 0, -1, Gid.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new QpConnect.Address(1 << 16, 0, 0, Gid.ZERO));
        assertThrows(NullPointerException.class, () -> new QpConnect.Address(0, 0, 0, null));
    }

    private static SoftDevice device(String name, String address) {
        return SoftDevice.builder().name(name).address(address).threading(Threading.DEDICATED).build();
    }
}

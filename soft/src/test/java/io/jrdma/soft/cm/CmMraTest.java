package io.jrdma.soft.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.soft.MadAddress;
import io.jrdma.soft.MadPort;
import io.jrdma.soft.SoftContext;
import io.jrdma.verbs.QpType;
import io.jrdma.wire.CmMra;
import io.jrdma.wire.CmRej;
import io.jrdma.wire.CmReq;
import io.jrdma.wire.Mad;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A passive side that needs time answers the REQ with an MRA (IBTA 12.6.6; ib_cm's ib_send_cm_mra): the active
 * side then waits the MRA's service timeout on top of its own instead of retrying and giving up. Here a hand-made
 * passive side on a raw MAD port MRAs the REQ with a 512 ms service timeout, then, after 300 ms (more than the
 * active side's three 18 ms retries would last), rejects it: the active side reports REJECTED with the reason, not
 * UNREACHABLE.
 */
class CmMraTest {

    @BeforeEach
    void shortTimeouts() {
        System.setProperty("jrdma.cm.responseTimeout", "12"); // 16 ms
        System.setProperty("jrdma.cm.packetLifetime", "8"); // 1 ms: a REQ waits 18 ms
        System.setProperty("jrdma.cm.maxRetries", "2");
    }

    @AfterEach
    void restore() {
        System.clearProperty("jrdma.cm.responseTimeout");
        System.clearProperty("jrdma.cm.packetLifetime");
        System.clearProperty("jrdma.cm.maxRetries");
    }

    @Test
    void anMraExtendsTheActiveSidesWait() throws Exception {
        try (CmFixture f = new CmFixture("127.0.220");
             SoftContext rawCtx = f.serverDev.open(); MadPort raw = MadPort.open(rawCtx, 1)) {
            CmId active = f.resolved(PortSpace.TCP, 7008);
            CmFixture.Side a = new CmFixture.Side(active, QpType.RC);
            active.connect(new ConnParam());
            MemorySegment req = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
            MadAddress from = raw.receive(req, Duration.ofSeconds(10));
            assertNotNull(from, "no REQ");
            assertEquals(CmReq.ATTRIBUTE_ID, Mad.attributeId(req, 0));
            long tid = Mad.transactionId(req, 0);
            int clientComm = CmReq.localCommId(req, 0);

            MemorySegment mra = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
            Mad.writeCmHeader(mra, 0, CmMra.ATTRIBUTE_ID, tid);
            CmMra.setLocalCommId(mra, 0, 0x5151);
            CmMra.setRemoteCommId(mra, 0, clientComm);
            CmMra.setMessageMraed(mra, 0, CmMra.MESSAGE_REQ);
            CmMra.setServiceTimeout(mra, 0, 17); // 512 ms
            raw.send(mra, from);

            assertNull(f.client.getEvent(Duration.ofMillis(300)), "the active side gave up despite the MRA");

            MemorySegment rej = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
            Mad.writeCmHeader(rej, 0, CmRej.ATTRIBUTE_ID, tid);
            CmRej.setLocalCommId(rej, 0, 0x5151);
            CmRej.setRemoteCommId(rej, 0, clientComm);
            CmRej.setMessageRejected(rej, 0, CmRej.MESSAGE_REQ);
            CmRej.setReason(rej, 0, 28);
            raw.send(rej, from);
            CmEvent e = f.client.getEvent(Duration.ofSeconds(10));
            assertNotNull(e, "no event after the REJ");
            assertEquals(CmEventType.REJECTED, e.type(), "status " + e.status());
            assertEquals(28, e.status());
            e.ack();
            active.close();
            a.close();
        }
    }
}

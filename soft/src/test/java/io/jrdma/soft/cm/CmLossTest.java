package io.jrdma.soft.cm;

import static io.jrdma.soft.cm.CmFixture.expectAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.soft.Counter;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.QpState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lost CM message is recovered by the CM's retransmission, as ib_cm does it: the devices' fault injection drops
 * exactly one MAD (the REQ, the REP, the RTU or the DREQ, by opcode or by QP 1's PSN) and the connection still
 * comes up and goes down, with the sender's retransmission counted. Timeouts shortened (64 ms) so a retry is quick.
 */
class CmLossTest {

    /** The first UD SEND ONLY a device sends (its first MAD): QP 1's only opcode. */
    private static final String FIRST_MAD = "drop_opcode=0x64,times=1";

    @BeforeEach
    void shortTimeouts() {
        System.setProperty("jrdma.cm.responseTimeout", "14");
        System.setProperty("jrdma.cm.packetLifetime", "8");
        System.setProperty("jrdma.cm.maxRetries", "8");
    }

    @AfterEach
    void restore() {
        System.clearProperty("jrdma.cm.responseTimeout");
        System.clearProperty("jrdma.cm.packetLifetime");
        System.clearProperty("jrdma.cm.maxRetries");
    }

    @Test
    void aLostReqIsSentAgain() {
        connectAndDisconnect("127.0.210", FaultConfig.parse(FIRST_MAD), FaultConfig.NONE, true);
    }

    @Test
    void aLostRepIsSentAgain() {
        connectAndDisconnect("127.0.211", FaultConfig.NONE, FaultConfig.parse(FIRST_MAD), false);
    }

    @Test
    void aLostRtuIsRecoveredByTheRepsRetransmission() {
        // QP 1's PSNs start at 0: the client's REQ is PSN 0, its RTU PSN 1
        connectAndDisconnect("127.0.212", FaultConfig.parse("drop_psn=1,times=1"), FaultConfig.NONE, false);
    }

    @Test
    void aLostDreqIsSentAgain() {
        // the client's third MAD (REQ 0, RTU 1, DREQ 2) is lost once
        connectAndDisconnect("127.0.213", FaultConfig.parse("drop_psn=2,times=1"), FaultConfig.NONE, true);
    }

    private static void connectAndDisconnect(String base, FaultConfig client, FaultConfig server,
            boolean clientRetransmits) {
        try (CmFixture f = new CmFixture(base, client, server)) {
            CmFixture.Pair p = f.connect(7174, new ConnParam());
            assertEquals(QpState.RTS, p.active().qp().state());
            assertEquals(QpState.RTS, p.passive().qp().state());
            p.active().disconnect();
            expectAck(f.server, CmEventType.DISCONNECTED);
            p.passive().disconnect();
            expectAck(f.client, CmEventType.DISCONNECTED);

            SoftDevice lossy = clientRetransmits || client != FaultConfig.NONE ? f.clientDev : f.serverDev;
            assertEquals(1, lossy.openedContext().counters().get(Counter.FAULT_DROPPED), "one MAD dropped");
            CmAgent sender = f.agentOf(clientRetransmits ? f.clientDev : f.serverDev);
            assertTrue(sender.counter(CmCounter.RETRANSMISSIONS) >= 1,
                    "the lost message was sent again: " + sender.counters());
            p.close();
            f.assertClean();
        }
    }
}

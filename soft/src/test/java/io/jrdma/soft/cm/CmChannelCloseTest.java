package io.jrdma.soft.cm;

import static io.jrdma.soft.cm.CmFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A program that closes its event channel with ids still on it (a listener, an established connection, a request it
 * retrieved and never acknowledged) leaves nothing behind: the ids are destroyed, the connection's peer is told
 * (DISCONNECTED), the pending request is dropped, and the CM's tables, ports and timers are empty afterwards.
 */
class CmChannelCloseTest {

    @Test
    void closingAChannelDestroysItsIdsAndTheirEvents() throws Exception {
        try (CmFixture f = new CmFixture("127.0.215")) {
            CmFixture.Pair p = f.connect(7300, new ConnParam());
            QueuePair passiveQp = p.passive().qp();
            CmId second = f.resolved(PortSpace.TCP, 7300);
            second.connect(new ConnParam());
            CmEvent pending = expect(f.server, CmEventType.CONNECT_REQUEST); // retrieved, never acknowledged
            assertNotNull(pending.id());

            f.server.close(); // the listener, the established passive id and the unaccepted one go

            // the established connection's peer is disconnected, the unaccepted one rejected (ib_cm destroying an
            // id in REQ_RCVD sends REJ "consumer defined", 28); in either order
            java.util.Map<CmId, CmEvent> got = new java.util.HashMap<>();
            for (int i = 0; i < 2; i++) {
                CmEvent e = f.client.getEvent(Duration.ofSeconds(10));
                assertNotNull(e, "the client heard " + got.size() + " of 2 events");
                got.put(e.id(), e);
                e.ack();
            }
            assertEquals(CmEventType.DISCONNECTED, got.get(p.active()).type());
            assertEquals(CmEventType.REJECTED, got.get(second).type());
            assertEquals(28, got.get(second).status());
            assertEquals(QpState.ERR, passiveQp.state()); // the destroyed id's QP (the peer's stays in RTS until
            // its own disconnect, as with the kernel's CM)
            second.close();
            p.active().close();
            p.a().close();
            p.b().close();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (f.registry.idCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            f.assertClean();
        }
    }
}

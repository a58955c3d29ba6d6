package io.jrdma.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.cm.spi.CmProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RdmaCmTest {

    private record Fake(String name, int order, Optional<String> unavailableReason) implements CmProvider {
        @Override
        public EventChannel createEventChannel() {
            throw new UnsupportedOperationException();
        }
    }

    private static final Fake NATIVE_NONE = new Fake("ibverbs", 0, Optional.of("no RDMA device"));
    private static final Fake NATIVE = new Fake("ibverbs", 0, Optional.empty());
    private static final Fake SOFT = new Fake("soft", 100, Optional.empty());

    @Test
    void firstAvailableInOrderWins() {
        assertSame(SOFT, RdmaCm.choose(List.of(NATIVE_NONE, SOFT), null, false));
        assertSame(NATIVE, RdmaCm.choose(List.of(NATIVE, SOFT), null, false));
    }

    @Test
    void restrictionKeepsOneProvider() {
        assertSame(SOFT, RdmaCm.choose(List.of(NATIVE, SOFT), "soft", false));
        VerbsException e = assertThrows(VerbsException.class,
                () -> RdmaCm.choose(List.of(NATIVE_NONE, SOFT), "ibverbs", true));
        assertEquals(Errno.ENODEV, e.errno());
        assertTrue(e.getMessage().contains("ibverbs: no RDMA device"), e.getMessage());
    }

    @Test
    void noProviderSaysWhatToAdd() {
        VerbsException e = assertThrows(VerbsException.class, () -> RdmaCm.choose(List.of(), null, false));
        assertTrue(e.getMessage().contains("jrdma-soft"), e.getMessage());
        e = assertThrows(VerbsException.class, () -> RdmaCm.choose(List.of(SOFT), "nope", true));
        assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("no such provider"), e.getMessage());
    }

    @Test
    void serviceIdsAreTheKernels() {
        assertEquals(0x0000000001061C06L, PortSpace.TCP.serviceId(7174)); // rping's default port
        assertEquals(0x0000000001110000L | 18515, PortSpace.UDP.serviceId(18515));
        assertEquals(0x00000000013F0001L, PortSpace.IB.serviceId(1));
        assertThrows(IllegalArgumentException.class, () -> PortSpace.TCP.serviceId(65536));
        assertSame(PortSpace.UDP, PortSpace.of(0x0111));
        assertEquals(9, CmEventType.ESTABLISHED.code()); // rdma_cm_event_type's order
        assertEquals(15, CmEventType.TIMEWAIT_EXIT.code());
        assertEquals("RDMA_CM_EVENT_REJECTED", CmEventType.REJECTED.eventName());
    }

    @Test
    void connParamChecksRangesAndCopies() {
        byte[] pd = {1, 2, 3};
        ConnParam p = new ConnParam().privateData(pd).responderResources(4).initiatorDepth(255).retryCount(0);
        pd[0] = 9;
        assertEquals(1, p.privateData()[0]);
        assertEquals(p, new ConnParam(p));
        assertThrows(IllegalArgumentException.class, () -> p.responderResources(256));
        assertThrows(IllegalArgumentException.class, () -> p.rnrRetryCount(8));
        assertThrows(IllegalArgumentException.class, () -> p.qpNum(1 << 24));
        assertEquals(4, p.responderResources());
    }
}

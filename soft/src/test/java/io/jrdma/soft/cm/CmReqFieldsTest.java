package io.jrdma.soft.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.soft.MadPort;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Gid;
import io.jrdma.wire.CmReq;
import io.jrdma.wire.CmaHeader;
import io.jrdma.wire.Mad;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The REQ the soft CM sends, field by field as the kernel's rdma_cm fills it (vectors/rxe-cm, CmGoldenTest). */
class CmReqFieldsTest {

    @Test
    void reqFieldsAreTheKernels() {
        try (CmFixture f = new CmFixture("127.0.192")) {
            // the "server" is a raw MAD port on the server device's address: it sees the REQ as sent
            f.registry.closeAgent(f.serverDev);
            try (SoftContext ctx = f.serverDev.open(); MadPort raw = MadPort.open(ctx, 1)) {
                CmId active = f.resolved(PortSpace.TCP, 7174);
                active.connect(new ConnParam().responderResources(1).initiatorDepth(1).flowControl(false)
                        .qpNum(0x1b).privateData(new byte[] {1, 2, 3}));
                MemorySegment q = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
                assertNotNull(raw.receive(q, Duration.ofSeconds(10)), "no REQ");
                assertEquals(CmReq.ATTRIBUTE_ID, Mad.attributeId(q, 0));
                assertEquals(Mad.METHOD_SEND, Mad.method(q, 0));
                int comm = CmReq.localCommId(q, 0);
                assertEquals(Integer.reverseBytes(comm), (int) Mad.transactionId(q, 0), "cm_form_tid");
                assertEquals(0x0000_0000_0106_1C06L, CmReq.serviceId(q, 0));
                assertEquals(f.clientDev.guid(), CmReq.localCaGuid(q, 0));
                assertEquals(0x1b, CmReq.localQpn(q, 0));
                assertEquals(0xFFFF, CmReq.primaryLocalPortLid(q, 0));
                assertEquals(0xFFFF, CmReq.primaryRemotePortLid(q, 0));
                assertEquals(0xFFFF, CmReq.partitionKey(q, 0));
                assertEquals(20, CmReq.remoteCmResponseTimeout(q, 0));
                assertEquals(20, CmReq.localCmResponseTimeout(q, 0));
                assertEquals(7, CmReq.retryCount(q, 0));
                assertEquals(7, CmReq.rnrRetryCount(q, 0));
                assertEquals(15, CmReq.maxCmRetries(q, 0));
                assertEquals(1, CmReq.responderResources(q, 0));
                assertEquals(1, CmReq.initiatorDepth(q, 0));
                assertEquals(19, CmReq.primaryLocalAckTimeout(q, 0));
                assertEquals(64, CmReq.primaryHopLimit(q, 0));
                assertEquals(0, CmReq.primaryTrafficClass(q, 0));
                assertEquals(0, CmReq.primarySl(q, 0));
                assertFalse(CmReq.srq(q, 0));
                assertFalse(CmReq.endToEndFlowControl(q, 0));
                assertEquals(CmReq.TRANSPORT_RC, CmReq.transportServiceType(q, 0));
                int sport = active.localAddress().getPort();
                assertEquals((sport * 31 + 7174) & 0xFFFFF, CmReq.primaryFlowLabel(q, 0));
                byte[] gid = new byte[16];
                CmReq.primaryLocalPortGid(q, 0, gid);
                assertArrayEquals(Gid.fromInet(f.clientDev.address()).toBytes(), gid);
                CmReq.primaryRemotePortGid(q, 0, gid);
                assertArrayEquals(Gid.fromInet(f.serverDev.address()).toBytes(), gid);
                long h = CmReq.PRIVATE_DATA;
                assertEquals(CmaHeader.VERSION, CmaHeader.cmaVersion(q, h));
                assertEquals(4, CmaHeader.ipVersion(q, h));
                assertEquals(sport, CmaHeader.port(q, h));
                assertEquals(CmMessages.ipv4(f.clientDev.address()), CmaHeader.srcIpv4(q, h));
                assertEquals(CmMessages.ipv4(f.serverDev.address()), CmaHeader.dstIpv4(q, h));
                assertEquals(1, q.get(java.lang.foreign.ValueLayout.JAVA_BYTE, h + CmaHeader.LENGTH));
                active.close();
            }
            f.assertClean();
        }
    }
}

package io.jrdma.soft.cm;

import static io.jrdma.soft.cm.CmFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.soft.MadAddress;
import io.jrdma.soft.MadPort;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Gid;
import io.jrdma.wire.CmRep;
import io.jrdma.wire.CmReq;
import io.jrdma.wire.CmRtu;
import io.jrdma.wire.CmaHeader;
import io.jrdma.wire.Mad;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A hand-made active side on a raw MAD port: duplicate REQs, REP retransmission until the RTU. */
class CmDuplicateTest {

    @Test
    void duplicateReqMakesNoSecondConnectionAndRepIsResentUntilRtu() throws Exception {
        try (CmFixture f = new CmFixture("127.0.191")) {
            CmId listener = f.listen(PortSpace.TCP, 7006, 4);
            CmAgent server = f.agentOf(f.serverDev);
            SoftDevice rawDev = SoftDevice.builder().name("cmraw").address("127.0.191.3").build();
            try (SoftContext ctx = rawDev.open(); MadPort raw = MadPort.open(ctx, 1)) {
                MadAddress to = MadAddress.gsi(InetAddress.getByName(f.serverIp));
                MemorySegment req = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
                Mad.writeCmHeader(req, 0, CmReq.ATTRIBUTE_ID, 0x42);
                CmReq.setLocalCommId(req, 0, 0xABC);
                CmReq.setServiceId(req, 0, PortSpace.TCP.serviceId(7006));
                CmReq.setLocalCaGuid(req, 0, 0x99);
                CmReq.setLocalQpn(req, 0, 0x55);
                CmReq.setStartingPsn(req, 0, 0x1234);
                CmReq.setPathPacketPayloadMtu(req, 0, 3);
                CmReq.setLocalCmResponseTimeout(req, 0, 12); // the REP is resent every 16 ms
                CmReq.setRemoteCmResponseTimeout(req, 0, 12);
                CmReq.setMaxCmRetries(req, 0, 15);
                CmReq.setRetryCount(req, 0, 7);
                CmReq.setRnrRetryCount(req, 0, 7);
                CmReq.setPartitionKey(req, 0, 0xFFFF);
                CmReq.setPrimaryLocalPortGid(req, 0, Gid.fromInet(rawDev.address()).toBytes());
                CmReq.setPrimaryRemotePortGid(req, 0, Gid.fromInet(f.serverDev.address()).toBytes());
                CmReq.setPrimaryHopLimit(req, 0, 64);
                CmaHeader.writeIpv4(req, CmReq.PRIVATE_DATA, 4321, CmMessages.ipv4(rawDev.address()),
                        CmMessages.ipv4(f.serverDev.address()));
                raw.send(req, to);
                CmEvent cr = expect(f.server, CmEventType.CONNECT_REQUEST);
                assertEquals(4321, cr.id().peerAddress().getPort());
                raw.send(req, to); // the duplicate
                long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (server.counter(CmCounter.DUPLICATES) == 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(1, server.counter(CmCounter.DUPLICATES));
                assertNull(f.server.getEvent(Duration.ofMillis(50)), "a second connection for a duplicate REQ");
                cr.ack();
                CmId passive = cr.id();
                passive.accept(new ConnParam().qpNum(0x66));
                MemorySegment in = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
                int reps = 0;
                int localComm = 0;
                long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (reps < 3 && System.nanoTime() < until) {
                    if (raw.receive(in, Duration.ofMillis(200)) != null
                            && Mad.attributeId(in, 0) == CmRep.ATTRIBUTE_ID) {
                        assertEquals(0xABC, CmRep.remoteCommId(in, 0));
                        assertEquals(0x66, CmRep.localQpn(in, 0));
                        assertEquals(0x42, Mad.transactionId(in, 0));
                        localComm = CmRep.localCommId(in, 0);
                        reps++;
                    }
                }
                assertEquals(3, reps, "the REP was not resent while no RTU came");
                assertTrue(server.counter(CmCounter.RETRANSMISSIONS) >= 2);
                MemorySegment rtu = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
                Mad.writeCmHeader(rtu, 0, CmRtu.ATTRIBUTE_ID, 0x42);
                CmRtu.setLocalCommId(rtu, 0, 0xABC);
                CmRtu.setRemoteCommId(rtu, 0, localComm);
                raw.send(rtu, to);
                CmEvent est = expect(f.server, CmEventType.ESTABLISHED);
                assertNotNull(est.id());
                est.ack();
                passive.close(); // an established connection: a DREQ goes out
                boolean dreq = false;
                until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (!dreq && System.nanoTime() < until) {
                    dreq = raw.receive(in, Duration.ofMillis(200)) != null
                            && Mad.attributeId(in, 0) == io.jrdma.wire.CmDreq.ATTRIBUTE_ID;
                }
                assertTrue(dreq, "no DREQ on destroy");
            }
            listener.close();
            f.assertClean();
        }
    }
}

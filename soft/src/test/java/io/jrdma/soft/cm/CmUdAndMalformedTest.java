package io.jrdma.soft.cm;

import static io.jrdma.soft.cm.CmFixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.soft.Counter;
import io.jrdma.soft.Counters;
import io.jrdma.soft.MadAddress;
import io.jrdma.soft.MadPort;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.CmAttributeId;
import io.jrdma.wire.CmDrep;
import io.jrdma.wire.CmDreq;
import io.jrdma.wire.CmRep;
import io.jrdma.wire.Mad;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** UD connections (SIDR) and MADs the CM must drop. */
class CmUdAndMalformedTest {

    @Test
    void udConnectAcceptAndSend() throws Exception {
        try (CmFixture f = new CmFixture("127.0.189")) {
            CmId listener = f.listen(PortSpace.UDP, 7003, 4);
            CmId active = f.resolved(PortSpace.UDP, 7003);
            CmFixture.Side a = new CmFixture.Side(active, QpType.UD);
            byte[] pd = new byte[ConnParam.MAX_SIDR_REQ_PRIVATE_DATA];
            Arrays.fill(pd, (byte) 0x5A);
            active.connect(new ConnParam().privateData(pd));
            CmEvent req = expect(f.server, CmEventType.CONNECT_REQUEST);
            UdParam requester = req.udParam();
            assertNotNull(requester);
            assertArrayEquals(pd, Arrays.copyOf(requester.privateData(), pd.length));
            CmId passive = req.id();
            req.ack();
            CmFixture.Side b = new CmFixture.Side(passive, QpType.UD);
            passive.qp().postRecv(new RecvWr().wrId(1).sg(new Sge(b.mr.segment().address(), 2048, b.mr.lkey())));
            byte[] rep = new byte[ConnParam.MAX_SIDR_REP_PRIVATE_DATA];
            Arrays.fill(rep, (byte) 0x3C);
            passive.accept(new ConnParam().privateData(rep));

            CmEvent est = expect(f.client, CmEventType.ESTABLISHED);
            UdParam ud = est.udParam();
            est.ack();
            assertEquals(passive.qp().qpNum(), ud.qpNum());
            assertEquals(PortSpace.UDP_QKEY, ud.qkey());
            assertArrayEquals(rep, Arrays.copyOf(ud.privateData(), rep.length));

            AddressHandle ah = a.pd.createAh(ud.ahAttr());
            byte[] msg = "hello over SIDR".getBytes();
            a.mr.segment().copyFrom(MemorySegment.ofArray(msg));
            active.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.mr.segment().address(), msg.length, a.mr.lkey())).ud(ah, ud.qpNum(), ud.qkey()));
            assertEquals(WcStatus.SUCCESS, a.await().status());
            WorkCompletion wc = b.await();
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(40 + msg.length, wc.byteLen());
            assertArrayEquals(msg, b.mr.segment().asSlice(40, msg.length).toArray(ValueLayout.JAVA_BYTE));
            ah.close();

            // a UD request nobody listens for, and one the server rejects
            CmId nobody = f.resolved(PortSpace.UDP, 7004);
            nobody.connect(new ConnParam());
            CmEvent un = expect(f.client, CmEventType.UNREACHABLE);
            assertEquals(1, un.status()); // IB_SIDR_UNSUPPORTED
            un.ack();
            CmId refused = f.resolved(PortSpace.UDP, 7003);
            refused.connect(new ConnParam());
            CmEvent r = expect(f.server, CmEventType.CONNECT_REQUEST);
            r.ack();
            r.id().reject(null);
            CmEvent rej = expect(f.client, CmEventType.UNREACHABLE);
            assertEquals(2, rej.status()); // IB_SIDR_REJECT
            rej.ack();

            r.id().close();
            refused.close();
            nobody.close();
            passive.close();
            active.close();
            listener.close();
            a.close();
            b.close();
            f.assertClean();
        }
    }

    @Test
    void malformedMadsAreDroppedAndCounted() throws Exception {
        try (CmFixture f = new CmFixture("127.0.190")) {
            CmAgent server = f.agentOf(f.serverDev);
            SoftDevice rogueDev = SoftDevice.builder().name("cmrogue").address("127.0.190.3").build();
            try (SoftContext ctx = rogueDev.open(); MadPort rogue = MadPort.open(ctx, 1)) {
                MadAddress to = MadAddress.gsi(InetAddress.getByName(f.serverIp));
                MemorySegment m = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
                Mad.writeCmHeader(m, 0, CmAttributeId.REP, 1);
                Mad.setClassVersion(m, 0, 1); // bad class version
                rogue.send(m, to);
                Mad.writeCmHeader(m, 0, CmAttributeId.REP, 2);
                Mad.setBaseVersion(m, 0, 2); // bad base version
                rogue.send(m, to);
                Mad.writeCmHeader(m, 0, 0x0030, 3); // an attribute the CM does not have
                rogue.send(m, to);
                Mad.writeCmHeader(m, 0, CmAttributeId.LAP, 4); // one it does not handle
                rogue.send(m, to);
                Mad.writeCmHeader(m, 0, CmRep.ATTRIBUTE_ID, 5); // a REP for a comm id nobody has
                CmRep.setRemoteCommId(m, 0, 0x7777);
                rogue.send(m, to);
                MemorySegment dreq = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
                Mad.writeCmHeader(dreq, 0, CmDreq.ATTRIBUTE_ID, 6); // a DREQ for a forgotten connection
                CmDreq.setLocalCommId(dreq, 0, 0x1111);
                CmDreq.setRemoteCommId(dreq, 0, 0x2222);
                rogue.send(dreq, to);
                // ib_cm answers the unknown DREQ with a DREP (cm_issue_drep)
                MemorySegment in = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
                assertNotNull(rogue.receive(in, Duration.ofSeconds(10)), "no DREP");
                assertEquals(CmDrep.ATTRIBUTE_ID, Mad.attributeId(in, 0));
                assertEquals(0x2222, CmDrep.localCommId(in, 0));
                assertEquals(0x1111, CmDrep.remoteCommId(in, 0));
                assertEquals(6, Mad.transactionId(in, 0));
                assertEquals(6, ctx.counters().get(Counter.MAD_SENT));
                assertEquals(1, ctx.counters().get(Counter.MAD_RCVD));
            }
            assertEquals(2, server.counter(CmCounter.DROPPED_BAD_VERSION));
            assertEquals(2, server.counter(CmCounter.DROPPED_BAD_ATTRIBUTE));
            assertEquals(2, server.counter(CmCounter.DROPPED_UNKNOWN_ID));
            // the device's counters (what jrdma stat shows) carry the same drops
            Counters dev = f.serverDev.openedContext().counters();
            assertEquals(6, dev.get(Counter.MAD_AGENT_DROPPED), dev.toString());
            assertEquals(6, dev.get(Counter.MAD_RCVD), dev.toString());
            // and the agent still works
            CmId listener = f.listen(PortSpace.TCP, 7005, 4);
            CmId active = f.resolved(PortSpace.TCP, 7005);
            active.connect(new ConnParam());
            CmEvent req = expect(f.server, CmEventType.CONNECT_REQUEST);
            req.ack();
            req.id().reject(null);
            CmEvent rej = expect(f.client, CmEventType.REJECTED);
            rej.ack();
            req.id().close();
            active.close();
            listener.close();
            f.assertClean();
        }
    }
}

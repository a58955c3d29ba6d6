package io.jrdma.soft.cm;

import static io.jrdma.soft.cm.CmFixture.expect;
import static io.jrdma.soft.cm.CmFixture.expectAck;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Connections made by the soft CM between two devices: setup, data over the CM-made QPs, teardown. */
class CmConnectTest {

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    @Test
    void connectAcceptSendWriteAndDisconnect() {
        try (CmFixture f = new CmFixture("127.0.180")) {
            CmId listener = f.listen(PortSpace.TCP, 7174, 4);
            CmId active = f.resolved(PortSpace.TCP, 7174);
            CmFixture.Side a = new CmFixture.Side(active, QpType.RC);
            assertEquals(QpState.INIT, active.qp().state());
            byte[] reqData = pattern(ConnParam.MAX_REQ_PRIVATE_DATA, 1);
            active.connect(new ConnParam().privateData(reqData).responderResources(4).initiatorDepth(4));

            CmEvent req = expect(f.server, CmEventType.CONNECT_REQUEST);
            CmId passive = req.id();
            assertSame(listener, req.listenId());
            assertArrayEquals(reqData, Arrays.copyOf(req.privateData(), reqData.length));
            assertEquals(4, req.connParam().responderResources());
            assertEquals(f.clientIp, passive.peerAddress().getAddress().getHostAddress());
            assertEquals(active.localAddress().getPort(), passive.peerAddress().getPort());
            assertEquals(active.qp() == null ? 0 : active.qp().qpNum(), req.connParam().qpNum());
            req.ack();
            CmFixture.Side b = new CmFixture.Side(passive, QpType.RC);
            passive.qp().postRecv(new RecvWr().wrId(1).sg(new Sge(b.mr.segment().address(), 4096, b.mr.lkey())));
            // the accept's private data tells the client where to write (as rping does)
            byte[] repData = new byte[ConnParam.MAX_REP_PRIVATE_DATA];
            ByteBuffer.wrap(repData).putLong(b.mr.segment().address() + 8192).putInt(b.mr.rkey());
            passive.accept(new ConnParam().privateData(repData).responderResources(4).initiatorDepth(4));
            assertEquals(QpState.RTS, passive.qp().state());

            CmEvent est = expect(f.client, CmEventType.ESTABLISHED);
            assertArrayEquals(repData, Arrays.copyOf(est.privateData(), repData.length));
            est.ack();
            assertEquals(QpState.RTS, active.qp().state());
            expectAck(f.server, CmEventType.ESTABLISHED);

            // an RC SEND over the CM-made QPs
            byte[] msg = pattern(1000, 3);
            a.mr.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(msg));
            active.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.mr.segment().address(), msg.length, a.mr.lkey())));
            assertEquals(WcStatus.SUCCESS, a.await().status());
            WorkCompletion rwc = b.await();
            assertEquals(WcStatus.SUCCESS, rwc.status());
            assertEquals(msg.length, rwc.byteLen());
            assertArrayEquals(msg, b.mr.segment().asSlice(0, msg.length).toArray(ValueLayout.JAVA_BYTE));

            // an RDMA WRITE to where the REP said
            ByteBuffer where = ByteBuffer.wrap(est.privateData());
            long raddr = where.getLong();
            int rkey = where.getInt();
            byte[] w = pattern(3000, 9);
            a.mr.segment().asSlice(4096).copyFrom(java.lang.foreign.MemorySegment.ofArray(w));
            active.qp().postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.mr.segment().address() + 4096, w.length, a.mr.lkey())).remote(raddr, rkey));
            assertEquals(WcStatus.SUCCESS, a.await().status());
            assertArrayEquals(w, b.mr.segment().asSlice(8192, w.length).toArray(ValueLayout.JAVA_BYTE));

            // the client disconnects: the server hears it, answers with its own disconnect (DREP)
            active.disconnect();
            assertEquals(QpState.ERR, active.qp().state());
            expectAck(f.server, CmEventType.DISCONNECTED);
            passive.disconnect();
            assertEquals(QpState.ERR, passive.qp().state());
            expectAck(f.client, CmEventType.DISCONNECTED);
            expectAck(f.client, CmEventType.TIMEWAIT_EXIT);
            expectAck(f.server, CmEventType.TIMEWAIT_EXIT);
            assertThrows(VerbsException.class, active::disconnect);

            passive.close();
            active.close();
            listener.close();
            a.close();
            b.close();
            f.assertClean();
        }
    }

    @Test
    void serverDisconnectsFirst() {
        try (CmFixture f = new CmFixture("127.0.181")) {
            CmId listener = f.listen(PortSpace.TCP, 5000, 4);
            CmId active = f.resolved(PortSpace.TCP, 5000);
            CmFixture.Side a = new CmFixture.Side(active, QpType.RC);
            active.connect(new ConnParam());
            CmEvent req = expect(f.server, CmEventType.CONNECT_REQUEST);
            CmId passive = req.id();
            req.ack();
            CmFixture.Side b = new CmFixture.Side(passive, QpType.RC);
            passive.accept(new ConnParam());
            expectAck(f.client, CmEventType.ESTABLISHED);
            expectAck(f.server, CmEventType.ESTABLISHED);
            passive.disconnect();
            CmEvent d = expect(f.client, CmEventType.DISCONNECTED);
            assertEquals(0, d.status());
            d.ack();
            active.disconnect();
            expectAck(f.server, CmEventType.DISCONNECTED);
            expectAck(f.server, CmEventType.TIMEWAIT_EXIT);
            expectAck(f.client, CmEventType.TIMEWAIT_EXIT);
            passive.close();
            active.close();
            listener.close();
            a.close();
            b.close();
            f.assertClean();
        }
    }

    @Test
    void rejectCarriesPrivateData() {
        try (CmFixture f = new CmFixture("127.0.182")) {
            CmId listener = f.listen(PortSpace.TCP, 5001, 4);
            CmId active = f.resolved(PortSpace.TCP, 5001);
            active.connect(new ConnParam().qpNum(0x123));
            CmEvent req = expect(f.server, CmEventType.CONNECT_REQUEST);
            assertEquals(0x123, req.connParam().qpNum());
            CmId passive = req.id();
            req.ack();
            byte[] why = pattern(ConnParam.MAX_REJ_PRIVATE_DATA, 5);
            passive.reject(why);
            CmEvent rej = expect(f.client, CmEventType.REJECTED);
            assertEquals(28, rej.status());
            assertArrayEquals(why, Arrays.copyOf(rej.privateData(), why.length));
            rej.ack();
            assertThrows(VerbsException.class, () -> passive.reject(null));
            passive.close();
            active.close();
            listener.close();
            f.assertClean();
        }
    }

    @Test
    void nobodyListensIsRejectedWithReason8() {
        try (CmFixture f = new CmFixture("127.0.183")) {
            f.agentOf(f.serverDev); // the server's CM runs, but nobody listens on the port
            CmId active = f.resolved(PortSpace.TCP, 5999);
            active.connect(new ConnParam());
            CmEvent rej = expect(f.client, CmEventType.REJECTED);
            assertEquals(8, rej.status());
            rej.ack();
            assertEquals(1, f.agentOf(f.serverDev).counter(CmCounter.REJ_INVALID_SERVICE_ID));
            active.close();
            f.assertClean();
        }
    }

    @Test
    void badArgumentsAndStates() {
        try (CmFixture f = new CmFixture("127.0.184")) {
            CmId id = f.client.createId(PortSpace.TCP, null);
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> id.connect(new ConnParam()))
                    .errno());
            assertEquals(Errno.EADDRNOTAVAIL, assertThrows(VerbsException.class,
                    () -> id.bindAddr(new java.net.InetSocketAddress("127.0.184.77", 1))).errno());
            CmId l = f.listen(PortSpace.TCP, 6000, 1);
            CmId l2 = f.server.createId(PortSpace.TCP, null);
            assertEquals(Errno.EADDRINUSE, assertThrows(VerbsException.class,
                    () -> l2.bindAddr(new java.net.InetSocketAddress(f.serverIp, 6000))).errno());
            CmId r = f.resolved(PortSpace.TCP, 6000);
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                    () -> r.connect(new ConnParam().privateData(new byte[ConnParam.MAX_REQ_PRIVATE_DATA + 1])))
                    .errno());
            assertNotNull(r.context());
            r.close();
            l2.close();
            l.close();
            id.close();
            f.assertClean();
        }
    }
}

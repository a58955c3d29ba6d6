package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.CmStructs.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * librdmacm's structs decoded and encoded without a device: an rdma_cm_event filled by hand as librdmacm fills it
 * (its conn or ud parameters pointing at private data), socket addresses byte by byte, a conn param written and
 * read back.
 */
@SuppressWarnings("restricted") // reads back a conn param through its pointer, as librdmacm would
class CmCodecTest {

    @Test
    void shouldDecodeARejectedEventsStatusAndPrivateData() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ev = arena.allocate(CM_EVENT);
            MemorySegment data = arena.allocate(148);
            data.copyFrom(MemorySegment.ofArray("no thanks".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            ev.set(JAVA_INT, EV_EVENT, 8);
            ev.set(JAVA_INT, EV_STATUS, 28);
            ev.set(ADDRESS, EV_PARAM + CP_PRIVATE_DATA, data);
            ev.set(JAVA_BYTE, EV_PARAM + CP_PRIVATE_DATA_LEN, (byte) 148);
            assertEquals(CmEventType.REJECTED, CmCodec.type(ev));
            assertEquals(28, ev.get(JAVA_INT, EV_STATUS));
            assertTrue(CmCodec.carriesParam(CmEventType.REJECTED, false));
            byte[] got = CmCodec.connParam(ev, EV_PARAM).privateData();
            assertEquals(148, got.length);
            assertEquals("no thanks", new String(got, 0, 9, java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals(0, got[9]);
        }
    }

    @Test
    void shouldDecodeAConnectRequestsParameters() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ev = arena.allocate(CM_EVENT);
            MemorySegment data = arena.allocate(56);
            data.set(JAVA_BYTE, 0, (byte) 0x5A);
            data.set(JAVA_BYTE, 55, (byte) 0xA5);
            ev.set(JAVA_INT, EV_EVENT, 4);
            long p = EV_PARAM;
            ev.set(ADDRESS, p + CP_PRIVATE_DATA, data);
            ev.set(JAVA_BYTE, p + CP_PRIVATE_DATA_LEN, (byte) 56);
            ev.set(JAVA_BYTE, p + CP_RESPONDER_RESOURCES, (byte) 3);
            ev.set(JAVA_BYTE, p + CP_INITIATOR_DEPTH, (byte) 200);
            ev.set(JAVA_BYTE, p + CP_FLOW_CONTROL, (byte) 1);
            ev.set(JAVA_BYTE, p + CP_RETRY_COUNT, (byte) 6);
            ev.set(JAVA_BYTE, p + CP_RNR_RETRY_COUNT, (byte) 7);
            ev.set(JAVA_BYTE, p + CP_SRQ, (byte) 1);
            ev.set(JAVA_INT, p + CP_QP_NUM, 0x123456);
            assertEquals(CmEventType.CONNECT_REQUEST, CmCodec.type(ev));
            ConnParam c = CmCodec.connParam(ev, p);
            assertEquals(56, c.privateDataLength());
            assertEquals(0x5A, c.privateData()[0]);
            assertEquals((byte) 0xA5, c.privateData()[55]);
            assertEquals(3, c.responderResources());
            assertEquals(200, c.initiatorDepth());
            assertTrue(c.flowControl());
            assertEquals(6, c.retryCount());
            assertEquals(7, c.rnrRetryCount());
            assertTrue(c.srq());
            assertEquals(0x123456, c.qpNum());
        }
    }

    @Test
    void shouldDecodeAUdEstablishedEvent() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ev = arena.allocate(CM_EVENT);
            ev.set(JAVA_INT, EV_EVENT, 9);
            long p = EV_PARAM;
            byte[] gid = Gid.parse("::ffff:10.77.0.12").toBytes();
            MemorySegment.copy(gid, 0, ev, JAVA_BYTE, p + UD_AH_ATTR + QpStructs.AHA_DGID, 16);
            ev.set(JAVA_BYTE, p + UD_AH_ATTR + QpStructs.AHA_IS_GLOBAL, (byte) 1);
            ev.set(JAVA_BYTE, p + UD_AH_ATTR + QpStructs.AHA_PORT_NUM, (byte) 1);
            ev.set(JAVA_BYTE, p + UD_AH_ATTR + QpStructs.AHA_HOP_LIMIT, (byte) 64);
            ev.set(JAVA_INT, p + UD_QP_NUM, 0x11);
            ev.set(JAVA_INT, p + UD_QKEY, 0x01234567);
            assertEquals(CmEventType.ESTABLISHED, CmCodec.type(ev));
            UdParam u = CmCodec.udParam(ev, p);
            assertEquals(0x11, u.qpNum());
            assertEquals(0x01234567, u.qkey());
            assertEquals(Gid.parse("::ffff:10.77.0.12"), u.ahAttr().dgid());
            assertTrue(u.ahAttr().isGlobal());
            assertEquals(64, u.ahAttr().hopLimit());
            assertEquals(1, u.ahAttr().portNum());
            assertEquals(0, u.privateData().length);
            assertFalse(CmCodec.carriesParam(CmEventType.DISCONNECTED, true));
        }
    }

    @Test
    void shouldRefuseAnEventTypeTheHeaderDoesNotDefineBadFlow() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ev = arena.allocate(CM_EVENT);
            ev.set(JAVA_INT, EV_EVENT, 16);
            assertThrows(IllegalStateException.class, () -> CmCodec.type(ev));
        }
    }

    @Test
    void shouldWriteSocketAddressesAsGlibcLaysThemOut() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("10.77.0.11"), 7174);
            MemorySegment s = CmCodec.sockaddr(arena, v4);
            assertEquals(AF_INET, s.get(JAVA_SHORT, 0));
            assertArrayEquals(new byte[] {0x1C, 0x06, 10, 77, 0, 11}, s.asSlice(2, 6).toArray(JAVA_BYTE));
            assertEquals(v4, CmCodec.sockaddr(s, 0));
            InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fe80::1"), 65535);
            MemorySegment s6 = CmCodec.sockaddr(arena, v6);
            assertEquals(AF_INET6, s6.get(JAVA_SHORT, 0));
            assertEquals((byte) 0xFE, s6.get(JAVA_BYTE, 8));
            assertEquals(1, s6.get(JAVA_BYTE, 23));
            assertEquals(v6, CmCodec.sockaddr(s6, 0));
            assertNull(CmCodec.sockaddr(arena.allocate(128), 0), "family 0: no address yet");
        }
    }

    @Test
    void shouldWriteAConnParamThatReadsBack() {
        try (Arena arena = Arena.ofConfined()) {
            ConnParam p = new ConnParam().privateData(new byte[] {1, 2, 3}).responderResources(4).initiatorDepth(2)
                    .retryCount(5).rnrRetryCount(3).flowControl(false).qpNum(77);
            MemorySegment s = CmCodec.connParam(arena, p).reinterpret(CONN_PARAM.byteSize());
            assertEquals(p, CmCodec.connParam(s, 0));
            assertEquals(MemorySegment.NULL, CmCodec.connParam(arena, null));
            VerbsException e = assertThrows(VerbsException.class, () -> CmCodec.privateData(arena, new byte[256]));
            assertEquals(Errno.EINVAL, e.errno());
        }
    }
}

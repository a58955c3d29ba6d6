package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The MAD header, the CM constants and enums, the GID and private data areas, CmaHeader and ServiceId. */
class MadTest {
    private static final int OFF = 3;

    private static MemorySegment mad(byte fill) {
        MemorySegment s = MemorySegment.ofArray(new byte[OFF + Mad.MAD_SIZE + 4]);
        s.fill(fill);
        return s;
    }

    private static String hex(MemorySegment s, int from, int len) {
        return HexFormat.of().formatHex(s.asSlice(from, len).toArray(Layouts.BYTE));
    }

    @Test
    void shouldWriteTheCmHeaderAsTheKernelDoes() {
        MemorySegment s = mad((byte) -1);
        Mad.writeCmHeader(s, OFF, CmAttributeId.REQ, 0x0000_0002_904D_3E36L);
        // the first 24 bytes of the REQ in vectors/rxe/rping.pcap
        assertEquals("010702030000000000000002904d3e36" + "0010000000000000", hex(s, OFF, 24));
        assertEquals("ff", hex(s, OFF - 1, 1));
        assertEquals("ff", hex(s, OFF + 24, 1));
        assertTrue(Mad.isCm(s, OFF));
        assertEquals(Mad.BASE_VERSION_1, Mad.baseVersion(s, OFF));
        assertEquals(Mad.MGMT_CLASS_CM, Mad.mgmtClass(s, OFF));
        assertEquals(Mad.CM_CLASS_VERSION, Mad.classVersion(s, OFF));
        assertEquals(Mad.METHOD_SEND, Mad.method(s, OFF));
        assertEquals(0x0000_0002_904D_3E36L, Mad.transactionId(s, OFF));
        assertEquals(0x0010, Mad.attributeId(s, OFF));
        assertEquals(0, Mad.reserved(s, OFF));
        assertEquals(0, Mad.attributeModifier(s, OFF));
    }

    @Test
    void shouldRoundTripEveryHeaderFieldWithoutTouchingNeighbours() {
        MemorySegment s = mad((byte) -1);
        Mad.setBaseVersion(s, OFF, 0);
        assertEquals("00ffffff", hex(s, OFF, 4));
        Mad.setMgmtClass(s, OFF, 0);
        Mad.setClassVersion(s, OFF, 0);
        Mad.setMethod(s, OFF, 0x81);
        assertEquals("00000081ffff", hex(s, OFF, 6));
        Mad.setStatus(s, OFF, 0x1234);
        Mad.setClassSpecific(s, OFF, 0xFFFE);
        assertEquals(0x1234, Mad.status(s, OFF));
        assertEquals(0xFFFE, Mad.classSpecific(s, OFF));
        Mad.setTransactionId(s, OFF, Long.MIN_VALUE);
        assertEquals(Long.MIN_VALUE, Mad.transactionId(s, OFF));
        Mad.setAttributeId(s, OFF, 0xFFFF);
        assertEquals(0xFFFF, Mad.attributeId(s, OFF));
        Mad.setAttributeModifier(s, OFF, -2);
        assertEquals(-2, Mad.attributeModifier(s, OFF));
        assertEquals("00000081" + "1234fffe" + "8000000000000000" + "ffffffff" + "fffffffe", hex(s, OFF, 24));
        assertEquals(0xFFFF, Mad.reserved(s, OFF));
        Mad.writeHeader(s, OFF, 4, 2, Mad.METHOD_GET_RESP, 7, 1, CmAttributeId.CLASS_PORT_INFO, 9);
        assertEquals("010402810007000000000000000000010001000000000009", hex(s, OFF, 24));
        assertFalse(Mad.isCm(s, OFF));
        assertEquals(Mad.METHOD_GET_RESP, Mad.METHOD_GET | Mad.METHOD_RESPONSE);
        assertEquals(Mad.METHOD_REPORT_RESP, Mad.METHOD_REPORT | Mad.METHOD_RESPONSE);
    }

    @Test
    void everyPrivateDataAreaEndsAtTheMadEnd() {
        Map<String, int[]> areas = Map.of(
                "REQ", new int[] {CmReq.PRIVATE_DATA, CmReq.PRIVATE_DATA_LENGTH, 92},
                "REP", new int[] {CmRep.PRIVATE_DATA, CmRep.PRIVATE_DATA_LENGTH, 196},
                "RTU", new int[] {CmRtu.PRIVATE_DATA, CmRtu.PRIVATE_DATA_LENGTH, 224},
                "REJ", new int[] {CmRej.PRIVATE_DATA, CmRej.PRIVATE_DATA_LENGTH, 148},
                "MRA", new int[] {CmMra.PRIVATE_DATA, CmMra.PRIVATE_DATA_LENGTH, 222},
                "DREQ", new int[] {CmDreq.PRIVATE_DATA, CmDreq.PRIVATE_DATA_LENGTH, 220},
                "DREP", new int[] {CmDrep.PRIVATE_DATA, CmDrep.PRIVATE_DATA_LENGTH, 224},
                "SIDR_REQ", new int[] {CmSidrReq.PRIVATE_DATA, CmSidrReq.PRIVATE_DATA_LENGTH, 216},
                "SIDR_REP", new int[] {CmSidrRep.PRIVATE_DATA, CmSidrRep.PRIVATE_DATA_LENGTH, 136});
        areas.forEach((name, a) -> {
            assertEquals(a[2], a[1], name + " private data length (ib_cm_data_size)");
            assertEquals(Mad.MAD_SIZE, a[0] + a[1], name + " private data ends at byte 256");
        });
        assertEquals(Mad.DATA + 12, CmRej.ARI);
        assertEquals(CmRej.PRIVATE_DATA, CmRej.ARI + CmRej.ARI_LENGTH);
        assertEquals(CmSidrRep.PRIVATE_DATA, CmSidrRep.ADDITIONAL_INFORMATION
                + CmSidrRep.ADDITIONAL_INFORMATION_MAX_LENGTH);
        assertEquals(CmAttributeId.REQ, CmReq.ATTRIBUTE_ID);
        assertEquals(CmAttributeId.SIDR_REP, CmSidrRep.ATTRIBUTE_ID);
    }

    @Test
    void shouldCopyEachGidToAndFromItsSixteenBytes() {
        byte[] gid = HexFormat.of().parseHex("fe800000000000000250" + "56fffe001122");
        byte[] back = new byte[16];
        record G(int at, java.util.function.BiConsumer<MemorySegment, byte[]> set,
                 java.util.function.BiConsumer<MemorySegment, byte[]> get) {
        }
        for (G g : new G[] {
            new G(CmReq.PRIMARY_LOCAL_PORT_GID, (s, v) -> CmReq.setPrimaryLocalPortGid(s, OFF, v),
                    (s, v) -> CmReq.primaryLocalPortGid(s, OFF, v)),
            new G(CmReq.PRIMARY_REMOTE_PORT_GID, (s, v) -> CmReq.setPrimaryRemotePortGid(s, OFF, v),
                    (s, v) -> CmReq.primaryRemotePortGid(s, OFF, v)),
            new G(CmReq.ALTERNATE_LOCAL_PORT_GID, (s, v) -> CmReq.setAlternateLocalPortGid(s, OFF, v),
                    (s, v) -> CmReq.alternateLocalPortGid(s, OFF, v)),
            new G(CmReq.ALTERNATE_REMOTE_PORT_GID, (s, v) -> CmReq.setAlternateRemotePortGid(s, OFF, v),
                    (s, v) -> CmReq.alternateRemotePortGid(s, OFF, v))}) {
            MemorySegment s = mad((byte) 0);
            g.set().accept(s, gid);
            g.get().accept(s, back);
            assertArrayEquals(gid, back);
            assertEquals(HexFormat.of().formatHex(gid), hex(s, OFF + g.at(), 16));
            for (int k = 0; k < s.byteSize(); k++) {
                if (k < OFF + g.at() || k >= OFF + g.at() + 16) {
                    assertEquals(0, s.get(Layouts.BYTE, k), "byte " + k + " outside the GID");
                }
            }
        }
        assertEquals(Mad.DATA + 56, CmReq.PRIMARY_LOCAL_PORT_GID);
        assertEquals(Mad.DATA + 72, CmReq.PRIMARY_REMOTE_PORT_GID);
        assertEquals(Mad.DATA + 100, CmReq.ALTERNATE_LOCAL_PORT_GID);
        assertEquals(Mad.DATA + 116, CmReq.ALTERNATE_REMOTE_PORT_GID);
    }

    @Test
    void rejectReasonsAndSidrStatusesHaveTheKernelCodes() {
        for (int code = 1; code <= 33; code++) {
            assertEquals(code, CmRejectReason.of(code).code());
        }
        assertNull(CmRejectReason.of(0));
        assertNull(CmRejectReason.of(34));
        assertEquals(8, CmRejectReason.INVALID_SERVICE_ID.code());
        assertEquals(28, CmRejectReason.CONSUMER_DEFINED.code());
        assertEquals(33, CmRejectReason.INVALID_ALT_FLOW_LABEL.code());
        for (int code = 0; code <= 5; code++) {
            assertEquals(code, CmSidrStatus.of(code).code());
        }
        assertNull(CmSidrStatus.of(6));
        assertNull(CmSidrStatus.of(-1));
        assertEquals(1, CmSidrStatus.UNSUPPORTED.code());
        assertEquals("REQ", CmAttributeId.name(0x10));
        assertEquals("SIDR_REP", CmAttributeId.name(0x18));
        assertEquals("APR", CmAttributeId.name(0x1A));
        assertEquals("ClassPortInfo", CmAttributeId.name(1));
        assertNull(CmAttributeId.name(0x1B));
        assertNull(CmAttributeId.name(0x0F));
    }

    @Test
    void serviceIdsFollowRdmaGetServiceId() {
        assertEquals(0x0000_0000_0106_1C06L, ServiceId.of(ServiceId.PS_TCP, 7174));
        assertEquals(0x0000_0000_0111_FFFFL, ServiceId.of(ServiceId.PS_UDP, 0xFFFF));
        assertEquals(0x0000_0000_013F_0000L, ServiceId.of(ServiceId.PS_IB, 0));
        long sid = ServiceId.of(ServiceId.PS_TCP, 0xE975);
        assertTrue(ServiceId.isRdmaCm(sid));
        assertEquals(ServiceId.PS_TCP, ServiceId.portSpace(sid));
        assertEquals(0xE975, ServiceId.port(sid));
        assertFalse(ServiceId.isRdmaCm(0x0200_0000_0106_0001L));
        assertFalse(ServiceId.isRdmaCm(0x0000_0000_0006_0001L));
    }

    @Test
    void shouldWriteAndReadTheCmaHeader() {
        MemorySegment s = mad((byte) -1);
        CmaHeader.writeIpv4(s, OFF, 0xE975, 0x0A4D000C, 0x0A4D000B);
        // the first 36 bytes of the REQ private data in vectors/rxe/rping.pcap
        assertEquals("0040e975" + "000000000000000000000000" + "0a4d000c" + "000000000000000000000000"
                + "0a4d000b", hex(s, OFF, CmaHeader.LENGTH));
        assertEquals("ff", hex(s, OFF + CmaHeader.LENGTH, 1));
        assertEquals(0, CmaHeader.cmaVersion(s, OFF));
        assertEquals(4, CmaHeader.ipVersion(s, OFF));
        assertEquals(0xE975, CmaHeader.port(s, OFF));
        assertEquals(0x0A4D000C, CmaHeader.srcIpv4(s, OFF));
        assertEquals(0x0A4D000B, CmaHeader.dstIpv4(s, OFF));
        CmaHeader.setIpVersion(s, OFF, 6);
        assertEquals("60", hex(s, OFF + 1, 1));
        s.set(Layouts.BYTE, OFF + 1, (byte) 0x6F);
        CmaHeader.setIpVersion(s, OFF, 4);
        assertEquals("4f", hex(s, OFF + 1, 1), "low nibble kept");
        byte[] v6 = HexFormat.of().parseHex("20010db8000000000000000000000001");
        CmaHeader.setSrcAddr(s, OFF, v6);
        CmaHeader.setDstAddr(s, OFF, v6);
        byte[] back = new byte[16];
        CmaHeader.srcAddr(s, OFF, back);
        assertArrayEquals(v6, back);
        CmaHeader.dstAddr(s, OFF, back);
        assertArrayEquals(v6, back);
        assertEquals(HexFormat.of().formatHex(v6), hex(s, OFF + CmaHeader.DST_ADDR, 16));
        CmaHeader.setCmaVersion(s, OFF, 0xFF);
        assertEquals(0xFF, CmaHeader.cmaVersion(s, OFF));
        CmaHeader.setPort(s, OFF, 0);
        assertEquals("ff4f0000", hex(s, OFF, 4));
    }
}

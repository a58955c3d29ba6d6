package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The CM MADs of the kernel rxe captures (vectors/rxe), decoded with the CM flyweights and checked against the rest
 * of each capture; every MAD rebuilt from its decoded fields must equal the captured bytes.
 */
class CmGoldenTest {
    /** A CM MAD of a capture: the packet and the MAD's offset in its frame. */
    record CmMad(GoldenVectorsTest.Packet packet, int madOffset) {
        MemorySegment seg() {
            return MemorySegment.ofArray(packet.frame());
        }

        int attr() {
            return Mad.attributeId(seg(), madOffset);
        }

        String where() {
            return packet.where() + " (" + CmAttributeId.name(attr()) + ")";
        }
    }

    static List<CmMad> cmMads(Path pcap) {
        List<CmMad> out = new ArrayList<>();
        for (GoldenVectorsTest.Packet k : GoldenVectorsTest.roce(pcap)) {
            MemorySegment ib = k.ib();
            if (Bth.opcode(ib, 0) == Opcode.UD_SEND_ONLY.code() && Bth.destQp(ib, 0) == Mad.GSI_QPN) {
                int mad = k.ibOffset() + Opcode.UD_SEND_ONLY.headerLength();
                assertEquals(Mad.MAD_SIZE, k.ibLength() - Opcode.UD_SEND_ONLY.headerLength() - Icrc.LENGTH,
                        k.where() + ": QP1 payload is one MAD");
                out.add(new CmMad(k, mad));
            }
        }
        return out;
    }

    private static Path pcap(String name) {
        return Vectors.dir().resolve(name);
    }

    @TestFactory
    Stream<DynamicTest> everyCmMadHasAKernelHeaderAndReencodesByteForByte() {
        List<Path> all = new ArrayList<>(Vectors.pcaps());
        all.addAll(CmCapturesTest.pcaps());
        return all.stream().filter(p -> !cmMads(p).isEmpty())
                .map(p -> DynamicTest.dynamicTest(p.getFileName().toString(), () -> {
                    for (CmMad m : cmMads(p)) {
                        MemorySegment s = m.seg();
                        int off = m.madOffset();
                        assertTrue(Mad.isCm(s, off), m.where());
                        assertEquals(Mad.CM_CLASS_VERSION, Mad.classVersion(s, off), m.where());
                        assertEquals(Mad.METHOD_SEND, Mad.method(s, off), m.where());
                        assertEquals(0, Mad.status(s, off), m.where());
                        assertEquals(0, Mad.classSpecific(s, off), m.where());
                        assertEquals(0, Mad.reserved(s, off), m.where());
                        assertEquals(0, Mad.attributeModifier(s, off), m.where());
                        long deth = m.packet().ibOffset() + Opcode.UD_SEND_ONLY.dethOffset();
                        assertEquals(Mad.GSI_QKEY, Deth.qkey(s, deth), m.where());
                        assertEquals(Mad.GSI_QPN, Deth.srcQp(s, deth), m.where());
                        byte[] captured = s.asSlice(off, Mad.MAD_SIZE).toArray(Layouts.BYTE);
                        byte[] rebuilt = CmReencoder.reencode(s, off).toArray(Layouts.BYTE);
                        assertEquals(HexFormat.of().formatHex(captured), HexFormat.of().formatHex(rebuilt),
                                m.where() + " rebuilt from its fields");
                    }
                }));
    }

    @Test
    void rpingHandshakeAgreesWithTheRestOfTheCapture() {
        Path p = pcap("rping.pcap");
        List<CmMad> mads = cmMads(p);
        assertEquals(List.of(CmAttributeId.REQ, CmAttributeId.REP, CmAttributeId.RTU, CmAttributeId.DREQ,
                CmAttributeId.DREP), mads.stream().map(CmMad::attr).toList());
        CmMad req = mads.get(0);
        CmMad rep = mads.get(1);
        CmMad rtu = mads.get(2);
        CmMad dreq = mads.get(3);
        CmMad drep = mads.get(4);
        int client = req.packet().srcIp();
        int server = req.packet().dstIp();
        assertEquals(0x0A4D000C, client, "README: the client is vm2");
        assertEquals(0x0A4D000B, server);
        assertEquals(server, rep.packet().srcIp());
        assertEquals(client, rtu.packet().srcIp());
        assertEquals(client, dreq.packet().srcIp(), "rping's client disconnects first");
        assertEquals(server, drep.packet().srcIp());

        MemorySegment q = req.seg();
        int qo = req.madOffset();
        MemorySegment r = rep.seg();
        int ro = rep.madOffset();
        int clientComm = CmReq.localCommId(q, qo);
        int serverComm = CmRep.localCommId(r, ro);
        assertNotEquals(0, clientComm);
        assertNotEquals(0, serverComm);
        assertEquals(clientComm, CmRep.remoteCommId(r, ro), "REP echoes the REQ's comm id");
        assertEquals(clientComm, CmRtu.localCommId(rtu.seg(), rtu.madOffset()));
        assertEquals(serverComm, CmRtu.remoteCommId(rtu.seg(), rtu.madOffset()));
        assertEquals(clientComm, CmDreq.localCommId(dreq.seg(), dreq.madOffset()));
        assertEquals(serverComm, CmDreq.remoteCommId(dreq.seg(), dreq.madOffset()));
        assertEquals(serverComm, CmDrep.localCommId(drep.seg(), drep.madOffset()));
        assertEquals(clientComm, CmDrep.remoteCommId(drep.seg(), drep.madOffset()));
        assertEquals(Mad.transactionId(q, qo), Mad.transactionId(r, ro), "REP answers with the REQ's TID");
        assertEquals(Mad.transactionId(dreq.seg(), dreq.madOffset()),
                Mad.transactionId(drep.seg(), drep.madOffset()), "DREP answers with the DREQ's TID");
        // cm_form_tid: hi_tid << 32 | the __be32 comm id taken as a host u32, so byte-swapped on x86 hosts.
        assertEquals(Integer.reverseBytes(clientComm), (int) Mad.transactionId(q, qo), "ib_cm's TID low half");

        long sid = CmReq.serviceId(q, qo);
        assertEquals(ServiceId.of(ServiceId.PS_TCP, 7174), sid, "rping's default port 7174 in the TCP space");
        assertTrue(ServiceId.isRdmaCm(sid));
        assertEquals(CmReq.TRANSPORT_RC, CmReq.transportServiceType(q, qo));
        assertEquals(0, CmReq.localQkey(q, qo));

        // Which QPN and PSN each side's RC packets use.
        int clientQpn = CmReq.localQpn(q, qo);
        int serverQpn = CmRep.localQpn(r, ro);
        int clientSendPsn = -1;
        int serverSendPsn = -1;
        int rcSrcPort = -1;
        for (GoldenVectorsTest.Packet k : GoldenVectorsTest.roce(p)) {
            MemorySegment ib = k.ib();
            Opcode op = Opcode.of(Bth.opcode(ib, 0));
            if (op.transport() != Transport.RC) {
                continue;
            }
            assertEquals(k.srcIp() == client ? serverQpn : clientQpn, Bth.destQp(ib, 0), k.where() + " dest QP");
            rcSrcPort = rcSrcPort < 0 ? k.srcPort() : rcSrcPort;
            assertEquals(rcSrcPort, k.srcPort(), k.where() + ": one UDP source port per connection");
            boolean request = !op.hasAeth() && op != Opcode.RC_RDMA_READ_RESPONSE_ONLY;
            if (request && k.srcIp() == client && clientSendPsn < 0) {
                clientSendPsn = Bth.psn(ib, 0);
            } else if (request && k.srcIp() == server && serverSendPsn < 0) {
                serverSendPsn = Bth.psn(ib, 0);
            }
        }
        // ib_send_cm_req keeps the REQ's starting PSN as the active side's rq_psn: the REQ carries the PSN the
        // client expects to receive, so the server sends from it; the REP's is the one the client sends from.
        assertEquals(CmReq.startingPsn(q, qo), serverSendPsn, "REQ starting PSN = first PSN the server sends");
        assertEquals(CmRep.startingPsn(r, ro), clientSendPsn, "REP starting PSN = first PSN the client sends");
        assertEquals(serverQpn, CmDreq.remoteQpnEecn(dreq.seg(), dreq.madOffset()), "DREQ names the peer's QP");
        // RoCEv2 derives the UDP source port from the path's flow label (rdma_flow_label_to_udp_sport).
        int fl = CmReq.primaryFlowLabel(q, qo);
        assertEquals(0xC000 | (fl & 0x3FFF) ^ (fl & 0xFC000) >>> 14, rcSrcPort,
                "flow label 0x" + Integer.toHexString(fl));

        // Path: GIDs are the IPv4-mapped addresses, LIDs 0xFFFF on RoCE; values as tshark 4.0.17 shows them.
        byte[] gid = new byte[16];
        CmReq.primaryLocalPortGid(q, qo, gid);
        assertArrayEquals(mapped(client), gid);
        CmReq.primaryRemotePortGid(q, qo, gid);
        assertArrayEquals(mapped(server), gid);
        assertEquals(0xFFFF, CmReq.primaryLocalPortLid(q, qo));
        assertEquals(0xFFFF, CmReq.primaryRemotePortLid(q, qo));
        assertEquals(0xFFFF, CmReq.partitionKey(q, qo));
        assertEquals(3, CmReq.pathPacketPayloadMtu(q, qo), "README: active_mtu 1024 (3)");
        assertEquals(20, CmReq.remoteCmResponseTimeout(q, qo));
        assertEquals(20, CmReq.localCmResponseTimeout(q, qo));
        assertEquals(7, CmReq.retryCount(q, qo));
        assertEquals(7, CmReq.rnrRetryCount(q, qo));
        assertEquals(15, CmReq.maxCmRetries(q, qo));
        assertEquals(1, CmReq.responderResources(q, qo));
        assertEquals(1, CmReq.initiatorDepth(q, qo));
        assertEquals(19, CmReq.primaryLocalAckTimeout(q, qo));
        assertEquals(64, CmReq.primaryHopLimit(q, qo));
        assertEquals(0, CmReq.primaryTrafficClass(q, qo));
        assertEquals(0, CmReq.primarySl(q, qo));
        assertFalse(CmReq.srq(q, qo));
        assertFalse(CmReq.endToEndFlowControl(q, qo));
        assertEquals(0x5054_00FF_FE77_000CL, CmReq.localCaGuid(q, qo), "GUID from the client's MAC");
        assertEquals(0x5054_00FF_FE77_000BL, CmRep.localCaGuid(r, ro), "GUID from the server's MAC");
        assertEquals(1, CmRep.responderResources(r, ro));
        assertEquals(1, CmRep.initiatorDepth(r, ro));
        assertEquals(15, CmRep.targetAckDelay(r, ro));
        assertEquals(7, CmRep.rnrRetryCount(r, ro));
        assertEquals(0, CmRep.failoverAccepted(r, ro));

        // The rdma_cm header: the IP header's addresses, the client's source port.
        long h = qo + CmReq.PRIVATE_DATA;
        assertEquals(CmaHeader.VERSION, CmaHeader.cmaVersion(q, h));
        assertEquals(4, CmaHeader.ipVersion(q, h));
        assertEquals(client, CmaHeader.srcIpv4(q, h));
        assertEquals(server, CmaHeader.dstIpv4(q, h));
        assertEquals(0xE975, CmaHeader.port(q, h), "tshark: IP CM Source Port 0xe975");
        for (long i = h + CmaHeader.LENGTH; i < qo + Mad.MAD_SIZE; i++) {
            assertEquals(0, q.get(Layouts.BYTE, i), "rping sends no consumer private data");
        }
    }

    @Test
    void packetFormatterShowsTheCmMessages() {
        List<String> lines = new ArrayList<>();
        for (CmMad m : cmMads(pcap("rping.pcap"))) {
            String line = PacketFormatter.describe(m.seg(), m.packet().ibOffset(), m.packet().ibLength());
            assertTrue(line.startsWith("UD_SEND_ONLY qp=0x000001 "), line);
            assertTrue(line.contains(" deth[qkey=0x80010000 src_qp=0x000001] cm["), line);
            lines.add(line.substring(line.indexOf(" cm["), line.indexOf(" icrc=")));
        }
        assertEquals(List.of(
                " cm[REQ tid=0x00000002904d3e36 comm=0x363e4d90 sid=0x0000000001061c06(TCP:7174) qpn=0x00001b"
                        + " psn=5881406 mtu=3 cma=10.77.0.12:59765>10.77.0.11 pd=36]",
                " cm[REP tid=0x00000002904d3e36 comm=0x5c26d961 remote=0x363e4d90 qpn=0x00001b psn=15970079 pd=0]",
                " cm[RTU tid=0x00000002904d3e36 comm=0x363e4d90 remote=0x5c26d961 pd=0]",
                " cm[DREQ tid=0x00000002904d3e36 comm=0x363e4d90 remote=0x5c26d961 remote_qpn=0x00001b pd=0]",
                " cm[DREP tid=0x00000002904d3e36 comm=0x5c26d961 remote=0x363e4d90 pd=0]"), lines);
    }

    @Test
    void packetFormatterShowsOtherMadsAndSkipsShortOnes() {
        CmMad req = cmMads(pcap("rping.pcap")).get(0);
        byte[] frame = req.packet().frame().clone();
        MemorySegment s = MemorySegment.ofArray(frame);
        Mad.setMgmtClass(s, req.madOffset(), 0x03);
        String sa = PacketFormatter.describe(s, req.packet().ibOffset(), req.packet().ibLength());
        assertTrue(sa.contains(" mad[class=0x03 method=0x03 attr=0x0010 tid=0x00000002904d3e36] icrc="), sa);
        Mad.setMgmtClass(s, req.madOffset(), Mad.MGMT_CLASS_CM);
        Mad.setAttributeId(s, req.madOffset(), CmAttributeId.REJ);
        CmRej.setReason(s, req.madOffset(), CmRejectReason.INVALID_SERVICE_ID.code());
        String rej = PacketFormatter.describe(s, req.packet().ibOffset(), req.packet().ibLength());
        assertTrue(rej.contains(" cm[REJ tid=0x00000002904d3e36 comm=0x363e4d90 remote=0x00000000"
                + " reason=INVALID_SERVICE_ID(8) msg=REQ"), rej);
        Mad.setAttributeId(s, req.madOffset(), 0x0042);
        String unknown = PacketFormatter.describe(s, req.packet().ibOffset(), req.packet().ibLength());
        assertTrue(unknown.contains(" cm[attr=0x0042 tid=0x00000002904d3e36] icrc="), unknown);
        // 4 bytes short of a MAD: the packet line carries no MAD summary
        int shorter = req.packet().ibLength() - 4;
        String cut = PacketFormatter.describe(s, req.packet().ibOffset(), shorter);
        assertFalse(cut.contains("cm[") || cut.contains("mad["), cut);
    }

    private static byte[] mapped(int ip) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xFF;
        g[11] = (byte) 0xFF;
        g[12] = (byte) (ip >>> 24);
        g[13] = (byte) (ip >>> 16);
        g[14] = (byte) (ip >>> 8);
        g[15] = (byte) ip;
        return g;
    }
}

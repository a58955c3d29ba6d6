package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The connection-management captures of vectors/rxe-cm (a REJ, service id resolution, two parallel connections),
 * decoded with the CM flyweights and checked against each other and the rest of each capture. CmGoldenTest also
 * rebuilds their MADs byte for byte.
 */
class CmCapturesTest {
    private static final int CLIENT = 0x0A4D000C;
    private static final int SERVER = 0x0A4D000B;

    /** The .pcap files of vectors/rxe-cm, sorted; none when the vectors came from a directory without it. */
    static List<Path> pcaps() {
        Path d = Vectors.dir().resolveSibling("rxe-cm");
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(d)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".pcap")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theCapturesOfTheReadmeArePresent() {
        Path d = Vectors.cmDir();
        assertEquals(List.of(d.resolve("rping_reject.pcap"), d.resolve("ucmatose.pcap"), d.resolve("udaddy.pcap")),
                pcaps());
    }

    private static List<CmGoldenTest.CmMad> mads(String file) {
        return CmGoldenTest.cmMads(Vectors.cmDir().resolve(file));
    }

    private static String line(CmGoldenTest.CmMad m) {
        return PacketFormatter.describe(m.seg(), m.packet().ibOffset(), m.packet().ibLength());
    }

    @Test
    void aReqToAPortNobodyListensOnIsRejectedWithInvalidServiceId() {
        List<CmGoldenTest.CmMad> mads = mads("rping_reject.pcap");
        assertEquals(List.of(CmAttributeId.REQ, CmAttributeId.REJ), mads.stream().map(CmGoldenTest.CmMad::attr)
                .toList());
        CmGoldenTest.CmMad req = mads.get(0);
        CmGoldenTest.CmMad rej = mads.get(1);
        MemorySegment q = req.seg();
        MemorySegment j = rej.seg();
        int qo = req.madOffset();
        int jo = rej.madOffset();
        assertEquals(CLIENT, req.packet().srcIp());
        assertEquals(SERVER, rej.packet().srcIp());
        assertEquals(ServiceId.of(ServiceId.PS_TCP, 7199), CmReq.serviceId(q, qo));
        assertEquals(CmReq.localCommId(q, qo), CmRej.remoteCommId(j, jo), "REJ names the REQ's comm id");
        assertEquals(0, CmRej.localCommId(j, jo), "cm_issue_rej: no local cm_id, comm id 0");
        assertEquals(Mad.transactionId(q, qo), Mad.transactionId(j, jo), "REJ answers with the REQ's TID");
        assertEquals(CmRejectReason.INVALID_SERVICE_ID, CmRejectReason.of(CmRej.reason(j, jo)));
        assertEquals(CmRej.MESSAGE_REQ, CmRej.messageRejected(j, jo));
        assertEquals(0, CmRej.rejectedInfoLength(j, jo));
        String text = line(rej);
        assertTrue(text.contains(" reason=INVALID_SERVICE_ID(8) msg=REQ pd=0]"), text);
    }

    @Test
    void udaddyResolvesTheServiceIdToTheQpAndQkeyItsDatagramsUse() {
        List<CmGoldenTest.CmMad> mads = mads("udaddy.pcap");
        assertEquals(List.of(CmAttributeId.SIDR_REQ, CmAttributeId.SIDR_REP),
                mads.stream().map(CmGoldenTest.CmMad::attr).toList());
        CmGoldenTest.CmMad req = mads.get(0);
        CmGoldenTest.CmMad rep = mads.get(1);
        MemorySegment q = req.seg();
        MemorySegment r = rep.seg();
        int qo = req.madOffset();
        int ro = rep.madOffset();
        assertEquals(CLIENT, req.packet().srcIp());
        assertEquals(SERVER, rep.packet().srcIp());
        long sid = ServiceId.of(ServiceId.PS_UDP, 7174);
        assertEquals(sid, CmSidrReq.serviceId(q, qo), "udaddy's default port 7174 in the UDP space");
        assertEquals(sid, CmSidrRep.serviceId(r, ro), "SIDR_REP echoes the service id");
        assertEquals(CmSidrReq.requestId(q, qo), CmSidrRep.requestId(r, ro));
        assertNotEquals(0, CmSidrReq.requestId(q, qo));
        assertEquals(Mad.transactionId(q, qo), Mad.transactionId(r, ro));
        assertEquals(0xFFFF, CmSidrReq.partitionKey(q, qo));
        assertEquals(CmSidrStatus.SUCCESS, CmSidrStatus.of(CmSidrRep.status(r, ro)));
        assertEquals(0, CmSidrRep.additionalInformationLength(r, ro));
        long h = qo + CmSidrReq.PRIVATE_DATA;
        assertEquals(4, CmaHeader.ipVersion(q, h));
        assertEquals(CLIENT, CmaHeader.srcIpv4(q, h));
        assertEquals(SERVER, CmaHeader.dstIpv4(q, h));
        assertNotEquals(0, CmaHeader.port(q, h));

        int datagrams = 0;
        for (GoldenVectorsTest.Packet k : GoldenVectorsTest.roce(Vectors.cmDir().resolve("udaddy.pcap"))) {
            MemorySegment ib = k.ib();
            if (Bth.destQp(ib, 0) == Mad.GSI_QPN) {
                continue;
            }
            Opcode op = Opcode.of(Bth.opcode(ib, 0));
            int qkey = Deth.qkey(ib, op.dethOffset());
            assertEquals(CmSidrRep.qkey(r, ro), qkey, k.where() + ": the resolved Q_Key (RDMA_UDP_QKEY)");
            int serverQpn = CmSidrRep.qpn(r, ro);
            if (k.srcIp() == CLIENT) {
                assertEquals(serverQpn, Bth.destQp(ib, 0), k.where() + ": sent to the resolved QPN");
            } else {
                assertEquals(serverQpn, Deth.srcQp(ib, op.dethOffset()), k.where() + ": answered from it");
            }
            datagrams++;
        }
        assertEquals(2, datagrams);
        assertEquals(0x0123_4567, CmSidrRep.qkey(r, ro));
        String text = line(rep);
        assertTrue(text.contains(" cm[SIDR_REP tid=0x") && text.contains(" status=SUCCESS qpn=0x"
                + String.format("%06x", CmSidrRep.qpn(r, ro)) + " qkey=0x01234567 sid=0x0000000001111c06(UDP:7174)"),
                text);
        assertTrue(line(req).contains(" sid=0x0000000001111c06(UDP:7174) cma=10.77.0.12:"), line(req));
    }

    @Test
    void twoParallelConnectionsKeepTheirIdsQpnsAndPsnsApart() {
        Path p = Vectors.cmDir().resolve("ucmatose.pcap");
        List<CmGoldenTest.CmMad> mads = CmGoldenTest.cmMads(p);
        Map<Integer, CmGoldenTest.CmMad> reqByComm = new HashMap<>();
        Map<Integer, CmGoldenTest.CmMad> repByRemote = new HashMap<>();
        int rtus = 0;
        int dreqs = 0;
        int dreps = 0;
        for (CmGoldenTest.CmMad m : mads) {
            MemorySegment s = m.seg();
            int o = m.madOffset();
            switch (m.attr()) {
                case CmAttributeId.REQ -> reqByComm.put(CmReq.localCommId(s, o), m);
                case CmAttributeId.REP -> repByRemote.put(CmRep.remoteCommId(s, o), m);
                default -> {
                }
            }
        }
        assertEquals(2, reqByComm.size(), "two REQs, two comm ids");
        assertEquals(reqByComm.keySet(), repByRemote.keySet(), "each REP answers one REQ");
        Map<Integer, Integer> clientQpnByServerComm = new HashMap<>();
        Map<Integer, Integer> serverQpnByClientQpn = new HashMap<>();
        for (Map.Entry<Integer, CmGoldenTest.CmMad> e : reqByComm.entrySet()) {
            CmGoldenTest.CmMad req = e.getValue();
            CmGoldenTest.CmMad rep = repByRemote.get(e.getKey());
            int clientQpn = CmReq.localQpn(req.seg(), req.madOffset());
            int serverQpn = CmRep.localQpn(rep.seg(), rep.madOffset());
            clientQpnByServerComm.put(CmRep.localCommId(rep.seg(), rep.madOffset()), clientQpn);
            serverQpnByClientQpn.put(clientQpn, serverQpn);
            assertEquals(Mad.transactionId(req.seg(), req.madOffset()), Mad.transactionId(rep.seg(), rep.madOffset()));
            assertEquals(ServiceId.of(ServiceId.PS_TCP, 7471), CmReq.serviceId(req.seg(), req.madOffset()),
                    "ucmatose's default port 7471");
            // the first SEND each way on this connection starts at the PSN the CM exchanged for that direction
            assertEquals(CmReq.startingPsn(req.seg(), req.madOffset()), firstSendPsn(p, SERVER, clientQpn));
            assertEquals(CmRep.startingPsn(rep.seg(), rep.madOffset()), firstSendPsn(p, CLIENT, serverQpn));
        }
        assertEquals(2, serverQpnByClientQpn.size());
        assertEquals(2, new HashSet<>(serverQpnByClientQpn.values()).size(), "two server QPs");
        for (CmGoldenTest.CmMad m : mads) {
            MemorySegment s = m.seg();
            int o = m.madOffset();
            switch (m.attr()) {
                case CmAttributeId.RTU -> {
                    rtus++;
                    assertTrue(reqByComm.containsKey(CmRtu.localCommId(s, o)), m.where());
                    assertTrue(clientQpnByServerComm.containsKey(CmRtu.remoteCommId(s, o)), m.where());
                }
                case CmAttributeId.DREQ -> {
                    dreqs++;
                    assertEquals(SERVER, m.packet().srcIp(), "ucmatose's server disconnects");
                    Integer clientQpn = clientQpnByServerComm.get(CmDreq.localCommId(s, o));
                    assertEquals(clientQpn, CmDreq.remoteQpnEecn(s, o), m.where() + ": the peer's QPN");
                    assertTrue(reqByComm.containsKey(CmDreq.remoteCommId(s, o)), m.where());
                }
                case CmAttributeId.DREP -> {
                    dreps++;
                    assertTrue(reqByComm.containsKey(CmDrep.localCommId(s, o)), m.where());
                    assertTrue(clientQpnByServerComm.containsKey(CmDrep.remoteCommId(s, o)), m.where());
                }
                default -> {
                }
            }
        }
        assertEquals(List.of(2, 2, 2), List.of(rtus, dreqs, dreps));
    }

    @Test
    void everyPacketHasTheIcrcTheKernelComputed() {
        Icrc icrc = new Icrc();
        int checked = 0;
        for (Path p : pcaps()) {
            for (GoldenVectorsTest.Packet k : GoldenVectorsTest.roce(p)) {
                assertTrue(icrc.verifyIpv4(k.srcIp(), k.dstIp(), k.srcPort(), k.dstPort(), k.ipId(), k.buffer(),
                        k.ibOffset(), k.ibLength()), k.where() + " ICRC");
                checked++;
            }
        }
        assertEquals(2 + 4 + 18, checked, "packets of rping_reject, udaddy, ucmatose (README)");
    }

    /** PSN of the first RC SEND from {@code srcIp} to QP {@code destQp}. */
    private static int firstSendPsn(Path pcap, int srcIp, int destQp) {
        for (GoldenVectorsTest.Packet k : GoldenVectorsTest.roce(pcap)) {
            MemorySegment ib = k.ib();
            if (k.srcIp() == srcIp && Bth.destQp(ib, 0) == destQp && Bth.opcode(ib, 0) == Opcode.RC_SEND_ONLY.code()) {
                return Bth.psn(ib, 0);
            }
        }
        throw new AssertionError("no RC SEND to QP 0x" + Integer.toHexString(destQp));
    }
}

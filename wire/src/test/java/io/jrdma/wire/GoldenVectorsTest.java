package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Byte-exact codec tests against packets captured between two kernel rxe endpoints (shared/vectors/rxe). */
class GoldenVectorsTest {
    /** tshark's names that differ from ours. */
    private static final Map<String, String> TSHARK_ALIASES = Map.of("RC_CMP_SWAP", "RC_COMPARE_SWAP");

    /** One RoCEv2 packet of a capture, with the frame fields parsed by {@link RoceFrame}. */
    record Packet(String file, int frameNo, byte[] frame, int srcIp, int dstIp, int ipId, int srcPort, int dstPort,
                  long srcMac, long dstMac, int ibOffset, int ibLength) {
        MemorySegment ib() {
            return MemorySegment.ofArray(frame).asSlice(ibOffset, ibLength);
        }

        ByteBuffer buffer() {
            return ByteBuffer.wrap(frame);
        }

        String where() {
            return file + " frame " + frameNo;
        }
    }

    static List<Packet> roce(Path pcap) {
        List<PcapReader.Record> records;
        try {
            records = PcapReader.readAll(pcap);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Packet> out = new ArrayList<>();
        RoceFrame f = new RoceFrame();
        int n = 0;
        for (PcapReader.Record r : records) {
            n++;
            assertTrue(r.complete(), pcap + " frame " + n + " truncated by the capture");
            if (f.parse(ByteBuffer.wrap(r.data()), 0, r.data().length) && f.isRoce()) {
                out.add(new Packet(pcap.getFileName().toString(), n, r.data(), f.srcIp(), f.dstIp(), f.ipId(),
                        f.srcPort(), f.dstPort(), f.srcMac(), f.dstMac(), f.ibOffset(), f.ibLength()));
            }
        }
        return out;
    }

    private static Stream<DynamicTest> perFile(Consumer<Path> check) {
        return Vectors.pcaps().stream().map(p -> DynamicTest.dynamicTest(p.getFileName().toString(),
                () -> check.accept(p)));
    }

    @Test
    void shouldFindEveryCaptureInTheReadme() {
        Map<String, Vectors.Expected> readme = Vectors.readme();
        List<Path> pcaps = Vectors.pcaps();
        assertTrue(pcaps.size() >= 11, "expected the 11 rxe captures, found " + pcaps);
        for (Path p : pcaps) {
            Vectors.Expected e = readme.get(p.getFileName().toString());
            assertNotNull(e, "README.md has no section for " + p.getFileName());
            assertFalse(e.countByCode().isEmpty(), "README.md lists no opcodes for " + p.getFileName());
            assertTrue(e.rocePackets() > 0, "README.md gives no RoCEv2 packet count for " + p.getFileName());
        }
    }

    @TestFactory
    Stream<DynamicTest> shouldCountOpcodesAsTheReadmeSays() {
        Map<String, Vectors.Expected> readme = Vectors.readme();
        return perFile(p -> {
            Vectors.Expected e = readme.get(p.getFileName().toString());
            assertNotNull(e, "no README section for " + p.getFileName());
            List<Packet> packets = roce(p);
            assertEquals(e.rocePackets(), packets.size(), "RoCEv2 packets in " + p.getFileName());
            Map<Integer, Integer> counts = new TreeMap<>();
            for (Packet k : packets) {
                int code = Bth.opcode(k.ib(), 0);
                assertNotNull(Opcode.of(code), k.where() + ": unknown opcode " + code);
                counts.merge(code, 1, Integer::sum);
            }
            assertEquals(new TreeMap<>(e.countByCode()), counts, "opcode counts of " + p.getFileName());
            e.nameByCode().forEach((code, name) ->
                    assertEquals(TSHARK_ALIASES.getOrDefault(name, name), Opcode.of(code).name(), "name of " + code));
        });
    }

    @TestFactory
    Stream<DynamicTest> shouldDecodeHeaderFieldsAsCaptured() {
        return perFile(p -> {
            for (Packet k : roce(p)) {
                MemorySegment s = k.ib();
                Opcode op = Opcode.of(Bth.opcode(s, 0));
                assertNotNull(op, k.where());
                assertEquals(0xFFFF, Bth.pkey(s, 0), k.where() + " P_Key");
                assertEquals(0, Bth.tver(s, 0), k.where() + " TVer");
                assertEquals(0, Bth.resv8a(s, 0), k.where() + " FECN/BECN byte");
                int body = k.ibLength() - op.headerLength() - Icrc.LENGTH;
                assertTrue(body >= 0, k.where() + ": " + k.ibLength() + " bytes cannot hold " + op);
                assertEquals(0, body % 4, k.where() + ": payload + pad not a multiple of 4");
                int pad = Bth.padCount(s, 0);
                if (op.hasPayload()) {
                    assertTrue(pad <= body, k.where() + ": pad beyond payload");
                } else {
                    assertEquals(0, body, k.where() + ": payload in " + op);
                    assertEquals(0, pad, k.where() + ": pad in " + op);
                }
                for (int i = k.ibLength() - Icrc.LENGTH - pad; i < k.ibLength() - Icrc.LENGTH; i++) {
                    assertEquals(0, s.get(Layouts.BYTE, i), k.where() + ": nonzero pad byte");
                }
                if (op.hasAeth()) {
                    assertTrue(AethSyndrome.isAck(Aeth.syndrome(s, op.aethOffset())), k.where() + " AETH type");
                }
                if (op.hasDeth() && Bth.destQp(s, 0) == 1) {
                    assertEquals(0x80010000, Deth.qkey(s, op.dethOffset()), k.where() + ": QP1 Q_Key");
                }
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> shouldReencodePacketsByteForByte() {
        Icrc icrc = new Icrc();
        return perFile(p -> {
            for (Packet k : roce(p)) {
                byte[] again = reencode(k.ib(), k.ibLength());
                ByteBuffer b = ByteBuffer.wrap(again);
                int crc = icrc.computeIpv4(k.srcIp(), k.dstIp(), k.srcPort(), k.dstPort(), k.ipId(), b, 0,
                        again.length);
                b.order(ByteOrder.LITTLE_ENDIAN).putInt(again.length - Icrc.LENGTH, crc);
                assertArrayEquals(k.ib().toArray(Layouts.BYTE), again, k.where() + " IB packet");
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> shouldRebuildWholeFramesByteForByte() {
        return perFile(p -> {
            for (Packet k : roce(p)) {
                ByteBuffer out = ByteBuffer.allocate(k.frame().length + 64);
                int len = RoceFrame.buildIpv4(out, 0, k.srcMac(), k.dstMac(), k.srcIp(), k.dstIp(), k.ipId(),
                        k.srcPort(), k.dstPort(), k.buffer(), k.ibOffset(), k.ibLength());
                assertEquals(k.frame().length, len, k.where() + " frame length (Ethernet padding?)");
                assertArrayEquals(k.frame(), Arrays.copyOf(out.array(), len), k.where() + " frame");
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> shouldVerifyIcrcWithTheCapturedIpId() {
        Icrc icrc = new Icrc();
        return perFile(p -> {
            List<Packet> packets = roce(p);
            int nonzeroIds = 0;
            for (Packet k : packets) {
                ByteBuffer b = k.buffer();
                int wire = Icrc.wireIcrc(b, k.ibOffset(), k.ibLength());
                assertEquals(wire, icrc.computeIpv4(k.srcIp(), k.dstIp(), k.srcPort(), k.dstPort(), k.ipId(), b,
                        k.ibOffset(), k.ibLength()), k.where() + " ICRC");
                assertTrue(icrc.verifyIpv4(k.srcIp(), k.dstIp(), k.srcPort(), k.dstPort(), k.ipId(), b, k.ibOffset(),
                        k.ibLength()), k.where());
                if (k.ipId() != 0) {
                    nonzeroIds++;
                    assertFalse(icrc.verifyIpv4(k.srcIp(), k.dstIp(), k.srcPort(), k.dstPort(), 0, b, k.ibOffset(),
                            k.ibLength()), k.where() + " verifies with ID 0 too");
                }
            }
            assertTrue(nonzeroIds * 10 >= packets.size() * 9, p.getFileName() + ": captured IPv4 IDs are mostly 0, "
                    + "the solver test would prove little");
        });
    }

    @TestFactory
    Stream<DynamicTest> shouldSolveTheCapturedIpId() {
        Icrc icrc = new Icrc();
        return perFile(p -> {
            for (Packet k : roce(p)) {
                ByteBuffer b = k.buffer();
                b.position(k.ibOffset() + 5);
                assertEquals(k.ipId(), icrc.solveIpv4Id(k.srcIp(), k.dstIp(), k.srcPort(), k.dstPort(), b,
                        k.ibOffset(), k.ibLength()), k.where());
                assertEquals(k.ibOffset() + 5, b.position(), "position kept");
                assertEquals(k.frame().length, b.limit(), "limit kept");
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> shouldNotSolveTheCapturedIdAfterAnyBitFlipBadFlow() {
        Icrc icrc = new Icrc();
        return perFile(p -> {
            Random rnd = new Random(p.getFileName().toString().hashCode());
            int flips = 0;
            int unsolved = 0;
            for (Packet k : roce(p)) {
                ByteBuffer b = k.buffer();
                int ib = k.ibOffset();
                Function<Integer, Integer> flipAndSolve = bit -> {
                    k.frame()[ib + bit / 8] ^= (byte) (1 << (bit % 8));
                    try {
                        return icrc.solveIpv4Id(k.srcIp(), k.dstIp(), k.srcPort(), k.dstPort(), b, ib, k.ibLength());
                    } finally {
                        k.frame()[ib + bit / 8] ^= (byte) (1 << (bit % 8));
                    }
                };
                List<Integer> bits = new ArrayList<>();
                for (int bit = 0; bit < Math.min(k.ibLength(), 64) * 8; bit++) {
                    bits.add(bit);
                }
                for (int i = 0; i < 32; i++) {
                    bits.add(rnd.nextInt(k.ibLength() * 8));
                }
                for (int bit = (k.ibLength() - Icrc.LENGTH) * 8; bit < k.ibLength() * 8; bit++) {
                    bits.add(bit);
                }
                for (int bit : bits) {
                    int id = flipAndSolve.apply(bit);
                    if (bit / 8 == Bth.RESV8A) {
                        assertEquals(k.ipId(), id, k.where() + ": BTH byte 4 is masked, flip of bit " + bit);
                        continue;
                    }
                    flips++;
                    assertNotEquals(k.ipId(), id, k.where() + ": solved the true ID despite flipped bit " + bit);
                    if (id == -1) {
                        unsolved++;
                    }
                }
                for (int bit = 0; bit < 32; bit++) {
                    int m = 1 << bit;
                    assertNotEquals(k.ipId(), icrc.solveIpv4Id(k.srcIp() ^ m, k.dstIp(), k.srcPort(), k.dstPort(), b,
                            ib, k.ibLength()), k.where() + " src IP bit " + bit);
                    assertNotEquals(k.ipId(), icrc.solveIpv4Id(k.srcIp(), k.dstIp() ^ m, k.srcPort(), k.dstPort(), b,
                            ib, k.ibLength()), k.where() + " dst IP bit " + bit);
                }
            }
            // A wrong packet verifies under some other ID with probability 2^-16 per flip.
            assertTrue(flips - unsolved <= flips / 1000 + 2, p.getFileName() + ": " + (flips - unsolved) + " of "
                    + flips + " corrupted packets matched some ID");
        });
    }

    @TestFactory
    Stream<DynamicTest> shouldDescribeEveryPacket() {
        return perFile(p -> {
            StringBuilder sb = new StringBuilder();
            for (Packet k : roce(p)) {
                sb.setLength(0);
                PacketFormatter.describe(MemorySegment.ofArray(k.frame()), k.ibOffset(), k.ibLength(), sb);
                String text = sb.toString();
                Opcode op = Opcode.of(Bth.opcode(k.ib(), 0));
                assertTrue(text.startsWith(op.name() + " "), k.where() + ": " + text);
                assertFalse(text.contains("malformed"), k.where() + ": " + text);
                assertTrue(text.contains(String.format("qp=0x%06x", Bth.destQp(k.ib(), 0))), text);
                assertTrue(text.contains(" psn=" + Bth.psn(k.ib(), 0) + " "), text);
            }
        });
    }

    /** Builds a fresh packet from decoded field values alone; the ICRC is left zero. */
    static byte[] reencode(MemorySegment s, int ibLen) {
        int code = Bth.opcode(s, 0);
        Opcode op = Opcode.of(code);
        byte[] out = new byte[ibLen];
        MemorySegment o = MemorySegment.ofArray(out);
        Bth.write(o, 0, code, Bth.solicited(s, 0), Bth.migReq(s, 0), Bth.padCount(s, 0), Bth.pkey(s, 0),
                Bth.destQp(s, 0), Bth.ackReq(s, 0), Bth.psn(s, 0));
        Bth.setTver(o, 0, Bth.tver(s, 0));
        Bth.setResv8a(o, 0, Bth.resv8a(s, 0));
        if (op.hasDeth()) {
            int at = op.dethOffset();
            Deth.setQkey(o, at, Deth.qkey(s, at));
            Deth.setSrcQp(o, at, Deth.srcQp(s, at));
        }
        if (op.hasReth()) {
            int at = op.rethOffset();
            Reth.setVa(o, at, Reth.va(s, at));
            Reth.setRkey(o, at, Reth.rkey(s, at));
            Reth.setDmaLength(o, at, Reth.dmaLength(s, at));
        }
        if (op.hasAtomicEth()) {
            int at = op.atomicEthOffset();
            AtomicEth.setVa(o, at, AtomicEth.va(s, at));
            AtomicEth.setRkey(o, at, AtomicEth.rkey(s, at));
            AtomicEth.setSwapAdd(o, at, AtomicEth.swapAdd(s, at));
            AtomicEth.setCompare(o, at, AtomicEth.compare(s, at));
        }
        if (op.hasAeth()) {
            int at = op.aethOffset();
            Aeth.setSyndrome(o, at, Aeth.syndrome(s, at));
            Aeth.setMsn(o, at, Aeth.msn(s, at));
        }
        if (op.hasAtomicAckEth()) {
            int at = op.atomicAckEthOffset();
            AtomicAckEth.setOrigData(o, at, AtomicAckEth.origData(s, at));
        }
        if (op.hasImm()) {
            ImmDt.setImm(o, op.immOffset(), ImmDt.imm(s, op.immOffset()));
        }
        if (op.hasIeth()) {
            Ieth.setRkey(o, op.iethOffset(), Ieth.rkey(s, op.iethOffset()));
        }
        int payload = ibLen - op.headerLength() - Icrc.LENGTH - Bth.padCount(s, 0);
        MemorySegment.copy(s, op.headerLength(), o, op.headerLength(), payload);
        return out;
    }
}

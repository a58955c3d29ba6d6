package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.PcapReader;
import io.jrdma.wire.RoceFrame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture option: a pcap of every opcode the soft device sends today, with frames rebuilt correctly (lengths,
 * IPv4 checksum, UDP 4791, ICRC), and — when tshark is installed — decoded by tshark as RoCEv2 without a single
 * malformed packet.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CaptureTest {

    /** The opcodes the traffic below produces: every one the device sends today. */
    static final Set<Opcode> EXPECTED = EnumSet.of(Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST,
            Opcode.RC_SEND_LAST_WITH_IMMEDIATE, Opcode.RC_SEND_ONLY, Opcode.RC_SEND_ONLY_WITH_IMMEDIATE,
            Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.RC_RDMA_WRITE_LAST,
            Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcode.RC_RDMA_WRITE_ONLY,
            Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.RC_RDMA_READ_REQUEST,
            Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE,
            Opcode.RC_RDMA_READ_RESPONSE_LAST, Opcode.RC_RDMA_READ_RESPONSE_ONLY, Opcode.RC_ACKNOWLEDGE);

    @TempDir
    Path dir;

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.capture");
        System.clearProperty("jrdma.capture.max-packets");
    }

    @Test
    void shouldCaptureEveryOpcodeAsValidFrames() throws IOException {
        Path pcap = dir.resolve("all.pcap");
        int packets = captureEveryOpcode(pcap);

        List<byte[]> frames = frames(pcap);
        assertEquals(packets, frames.size(), "each packet recorded once, though both ends capture");
        RoceFrame f = new RoceFrame();
        Icrc icrc = new Icrc();
        Set<Opcode> seen = EnumSet.noneOf(Opcode.class);
        int naks = 0;
        for (byte[] bytes : frames) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            assertTrue(f.parse(b, 0, bytes.length) && f.isRoce() && f.ipVersion() == 4, "a RoCEv2 frame");
            assertEquals(RoceFrame.ipv4HeaderChecksum(b, RoceFrame.ETHERNET_HEADER),
                    b.getShort(RoceFrame.ETHERNET_HEADER + 10) & 0xFFFF, "IPv4 header checksum");
            assertEquals(bytes.length - RoceFrame.ETHERNET_HEADER, b.getShort(RoceFrame.ETHERNET_HEADER + 2),
                    "IPv4 total length");
            assertEquals(bytes.length - RoceFrame.ETHERNET_HEADER - RoceFrame.IPV4_HEADER,
                    b.getShort(RoceFrame.ETHERNET_HEADER + RoceFrame.IPV4_HEADER + 4), "UDP length");
            assertTrue(icrc.verifyIpv4(f.srcIp(), f.dstIp(), f.srcPort(), f.dstPort(), f.ipId(), b,
                    RoceFrame.IPV4_OVERHEAD, bytes.length - RoceFrame.IPV4_OVERHEAD), "ICRC as sent");
            Opcode op = Opcode.of(bytes[RoceFrame.IPV4_OVERHEAD] & 0xFF);
            seen.add(op);
            if (op == Opcode.RC_ACKNOWLEDGE && (bytes[RoceFrame.IPV4_OVERHEAD + 12] & 0x60) != 0) {
                naks++; // AETH syndrome 01x (RNR NAK) or 11x (NAK)
            }
        }
        assertEquals(EXPECTED, seen);
        assertEquals(2, naks, "one RNR NAK and one remote access NAK");

        assumeTrue(Tshark.available(), "tshark is not installed (apt-get install tshark): decode not checked");
        Tshark.Result r = Tshark.decode(pcap);
        assertEquals(frames.size(), r.lines().size(), r.toString());
        assertEquals(List.of(), r.malformed(), "tshark reports malformed packets or bad checksums:\n" + r);
        Set<String> names = new TreeSet<>();
        for (Opcode op : EXPECTED) {
            names.add(Tshark.opcodeName(op));
        }
        assertEquals(names, r.opcodes(), r.toString());
        assertEquals(2, r.naks(), r.toString());
    }

    @Test
    void shouldStopAtTheBound() throws IOException {
        Path pcap = dir.resolve("bounded.pcap");
        System.setProperty("jrdma.capture.max-packets", "5");
        captureEveryOpcode(pcap);
        assertEquals(5, frames(pcap).size());
    }

    @Test
    void shouldRefuseToOpenWhenTheCaptureFileCannotBeWritten() throws IOException {
        Path notADir = Files.writeString(dir.resolve("file"), "x");
        SoftDevice d = SoftDevice.builder().name("cap").address("127.0.36.9").threading(Threading.INVOKER)
                .capture(notADir.resolve("x.pcap")).build();
        io.jrdma.verbs.VerbsException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.jrdma.verbs.VerbsException.class, d::open);
        assertTrue(e.getMessage().contains("capture"), e.getMessage());
        // the device is not left open: opening again fails the same way, not with EBUSY
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(io.jrdma.verbs.VerbsException.class, d::open)
                .getMessage().contains("capture"));
    }

    /**
     * Runs SEND (multi-packet and only, with and without immediate), WRITE (the same), READ (multi-packet and
     * only), which ACKs, then a WRITE to a bad rkey (remote access NAK) on one pair and a SEND with no receive and
     * rnr_retry 0 (RNR NAK) on another, every device capturing into {@code pcap}.
     *
     * @return the packets sent
     */
    static int captureEveryOpcode(Path pcap) {
        System.setProperty("jrdma.capture", pcap.toString());
        long sent;
        try (Pair p = Pair.invoker("127.0.36.1", "127.0.36.2", 64 * 1024)) {
            Peer a = p.a;
            Peer b = p.b;
            for (int len : new int[] {3000, 100}) {
                b.qp.postRecv(new RecvWr().wrId(1).sg(new Sge(b.addr(0), 8192, b.mr.lkey())));
                b.qp.postRecv(new RecvWr().wrId(2).sg(new Sge(b.addr(0), 8192, b.mr.lkey())));
                b.qp.postRecv(new RecvWr().wrId(3).sg(new Sge(b.addr(0), 8192, b.mr.lkey())));
                post(p, new SendWr().opcode(WrOpcode.SEND).sg(new Sge(a.addr(0), len, a.mr.lkey())));
                post(p, new SendWr().opcode(WrOpcode.SEND_WITH_IMM).immData(7).sg(new Sge(a.addr(0), len,
                        a.mr.lkey())));
                post(p, new SendWr().opcode(WrOpcode.RDMA_WRITE).sg(new Sge(a.addr(0), len, a.mr.lkey()))
                        .remoteAddr(b.addr(8192)).rkey(b.mr.rkey()));
                post(p, new SendWr().opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(8)
                        .sg(new Sge(a.addr(0), len, a.mr.lkey())).remoteAddr(b.addr(8192)).rkey(b.mr.rkey()));
                post(p, new SendWr().opcode(WrOpcode.RDMA_READ).sg(new Sge(a.addr(16384), len, a.mr.lkey()))
                        .remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
                p.awaitN(b.cq, 3);
            }
            a.qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 8, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey() ^ 0x100));
            assertEquals(WcStatus.REM_ACCESS_ERR, p.await(a.cq).status());
            sent = a.ctx.counters().get(Counter.SENT_PKTS) + b.ctx.counters().get(Counter.SENT_PKTS);
        }
        Peer.Link noRnrRetry = new Peer.Link();
        noRnrRetry.rnrRetry = 0;
        try (Pair p = new Pair("127.0.36.3", "127.0.36.4", Threading.INVOKER, NanoClock.SYSTEM, 4096,
                Peer.ALL_ACCESS, new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1), noRnrRetry)) {
            p.a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(p.a.addr(0), 8, p.a.mr.lkey())));
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, p.await(p.a.cq).status());
            assertEquals(QpState.ERR, p.a.qp.state());
            sent += p.a.ctx.counters().get(Counter.SENT_PKTS) + p.b.ctx.counters().get(Counter.SENT_PKTS);
        } finally {
            System.clearProperty("jrdma.capture");
        }
        return (int) sent;
    }

    private static void post(Pair p, SendWr wr) {
        p.a.qp.postSend(wr.wrId(5).sendFlags(SendFlags.SIGNALED));
        assertEquals(WcStatus.SUCCESS, p.await(p.a.cq).status(), wr.toString());
    }

    static List<byte[]> frames(Path pcap) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (PcapReader.Record rec : PcapReader.readAll(pcap)) {
            out.add(rec.data());
        }
        return out;
    }

    /** Runs tshark on a capture. */
    static final class Tshark {
        static final Path BINARY = Path.of("/usr/bin/tshark");
        static final List<String> UPPER_LAYERS = List.of("rpcordma", "smb_direct", "nvme-rdma", "iser", "lnet",
                "smc", "infiniband_sdp", "fcoib");

        record Result(List<String> lines, List<String> malformed, Set<String> opcodes, int naks, String stderr) {
            @Override
            public String toString() {
                return String.join("\n", lines) + "\n" + stderr;
            }
        }

        static boolean available() {
            return Files.isExecutable(BINARY);
        }

        /** An opcode as tshark's infiniband.bth.opcode field prints it: its decimal value. */
        static String opcodeName(Opcode op) {
            return Integer.toString(op.code());
        }

        static Result decode(Path pcap) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(BINARY.toString(), "-n", "-r", pcap.toString(), "-d",
                    "udp.port==4791,infiniband", "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=|", "-e", "frame.number",
                    "-e", "infiniband.bth.opcode", "-e", "_ws.malformed", "-e", "_ws.expert.message",
                    "-e", "infiniband.aeth.syndrome", "-e", "ip.checksum.status"));
            // the payloads are test bytes, not storage protocols: keep tshark's payload heuristics from
            // guessing (RPC over RDMA "decodes" an 8-byte SEND of zeros and calls it malformed)
            for (String upper : UPPER_LAYERS) {
                cmd.addAll(List.of("--disable-protocol", upper));
            }
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().put("HOME", pcap.getParent().toString()); // no user profile, no writes to ~
            Process proc = pb.start();
            String out;
            String err;
            try {
                out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                err = new String(proc.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!proc.waitFor(20, TimeUnit.SECONDS)) {
                    proc.destroyForcibly();
                    throw new IOException("tshark did not finish");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            List<String> lines = out.lines().toList();
            List<String> malformed = new ArrayList<>();
            Set<String> opcodes = new TreeSet<>();
            int naks = 0;
            for (String line : lines) {
                String[] f = line.split("\\|", -1);
                // ip.checksum.status 1 is "Good"; any malformed or expert message is a defect of the frame
                if (!f[2].isEmpty() || !f[3].isEmpty() || !f[5].equals("1")
                        || line.toLowerCase(java.util.Locale.ROOT).contains("malformed")) {
                    malformed.add(line);
                }
                opcodes.add(f[1]);
                if (!f[4].isEmpty() && (Integer.decode(f[4]) & 0x60) != 0) {
                    naks++;
                }
            }
            return new Result(lines, malformed, opcodes, naks, err);
        }
    }
}

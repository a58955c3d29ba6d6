package io.jrdma.soft;

import io.jrdma.verbs.Gid;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The other process of {@link MultiProcessTest}: opens a soft device (dedicated engine thread) on the address in
 * args[0], prints "qpn rkey addr gid", reads the parent's line, connects, then obeys commands on stdin:
 * {@code recv N} posts N receives, {@code send LEN} sends LEN bytes of pattern, {@code await N} waits for N
 * completions and prints them, {@code crc OFF LEN} prints a checksum of its buffer, {@code quit}.
 */
public final class RemotePeerMain {

    private RemotePeerMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long size = Long.parseLong(args[1]);
        try (Peer p = new Peer(args[0], Threading.DEDICATED, NanoClock.SYSTEM, size, Peer.ALL_ACCESS,
                Peer.defaultCap())) {
            RcDataPathTest.fill(p.buf, 0, size, new java.util.Random(7));
            out.println(p.qp.qpNum() + " " + p.mr.rkey() + " " + p.mr.address() + " " + p.ctx.queryGid(1, 1));
            String[] peer = in.readLine().trim().split(" ");
            p.connect(Integer.parseInt(peer[0]), Gid.parse(peer[3]), Peer.Link.tolerant());
            out.println("ready");
            WorkCompletion[] wcs = {new WorkCompletion()};
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] c = line.trim().split(" ");
                switch (c[0]) {
                    case "recv" -> {
                        int n = Integer.parseInt(c[1]);
                        long each = size / n;
                        for (int i = 0; i < n; i++) {
                            p.qp.postRecv(new RecvWr().wrId(i).sg(new Sge(p.addr(i * each), (int) each,
                                    p.mr.lkey())));
                        }
                        out.println("ok");
                    }
                    case "send" -> {
                        p.qp.postSend(new SendWr().wrId(42).opcode(WrOpcode.SEND_WITH_IMM).immData(0x1234)
                                .sendFlags(SendFlags.SIGNALED).sg(new Sge(p.addr(0), Integer.parseInt(c[1]),
                                        p.mr.lkey())));
                        out.println("ok");
                    }
                    case "await" -> {
                        int n = Integer.parseInt(c[1]);
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        StringBuilder sb = new StringBuilder();
                        for (int got = 0; got < n; ) {
                            if (p.cq.poll(wcs) == 1) {
                                got++;
                                sb.append(wcs[0].status() == WcStatus.SUCCESS ? "" : "ERROR ").append(wcs[0].opcode())
                                        .append(':').append(wcs[0].byteLen()).append(':')
                                        .append(Integer.toHexString(wcs[0].immData())).append(' ');
                            } else if (System.nanoTime() > deadline) {
                                sb.append("TIMEOUT");
                                break;
                            } else {
                                Thread.onSpinWait();
                            }
                        }
                        out.println(sb.toString().trim());
                    }
                    case "crc" -> {
                        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                        crc.update(p.buf.asSlice(Long.parseLong(c[1]), Long.parseLong(c[2])).asByteBuffer());
                        out.println(Long.toHexString(crc.getValue()));
                    }
                    case "quit" -> {
                        out.println("bye");
                        return;
                    }
                    default -> out.println("unknown " + line);
                }
            }
        }
    }
}

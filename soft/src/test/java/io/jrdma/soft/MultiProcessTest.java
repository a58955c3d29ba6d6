package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two JVM processes, each with its own soft device and dedicated engine thread, moving data through each other's
 * shared-memory rings (the default between devices of a host) or over real UDP on loopback: WRITE and READ of
 * 64 MiB, and SENDs in both directions, checked by CRC in the other process.
 */
@Tag("slow")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MultiProcessTest {

    private static final long SIZE = 64L << 20;

    @ParameterizedTest
    @EnumSource(value = LinkKind.class, names = {"SHM", "NATIVE"})
    void shouldMoveDataBetweenTwoProcesses(LinkKind kind) throws Exception {
        kind.assume();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx512m", "--enable-native-access=ALL-UNNAMED",
                "-Djrdma.shm=" + kind.sharedMemory(), "-cp", ChildClassPath.get(),
                RemotePeerMain.class.getName(), "127.0.9.2", Long.toString(SIZE))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (Peer me = new Peer("127.0.9.1", Threading.DEDICATED, NanoClock.SYSTEM, SIZE, Peer.ALL_ACCESS,
                Peer.defaultCap(), kind)) {
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            PrintStream to = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
            String[] peer = from.readLine().trim().split(" ");
            int peerQpn = Integer.parseInt(peer[0]);
            int peerRkey = Integer.parseInt(peer[1]);
            long peerAddr = Long.parseLong(peer[2]);
            me.connect(peerQpn, io.jrdma.verbs.Gid.parse(peer[3]), Peer.Link.tolerant());
            to.println(me.qp.qpNum() + " " + me.mr.rkey() + " " + me.mr.address() + " " + me.ctx.queryGid(1, 1));
            assertEquals("ready", from.readLine());

            RcDataPathTest.fill(me.buf, 0, SIZE, new java.util.Random(3));
            // 64 MiB WRITE into the other process, checked by its CRC of the region
            me.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(me.addr(0), (int) SIZE, me.mr.lkey())).remoteAddr(peerAddr).rkey(peerRkey));
            assertEquals(WcStatus.SUCCESS, await(me).status());
            to.println("crc 0 " + SIZE);
            assertEquals(crc(me, 0, SIZE), from.readLine(), "the other process holds what was written");

            // 64 MiB READ back from the other process after it changed nothing: compare with its CRC
            me.buf.fill((byte) 0);
            me.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(me.addr(0), (int) SIZE, me.mr.lkey())).remoteAddr(peerAddr).rkey(peerRkey));
            WorkCompletion read = await(me);
            assertEquals(WcStatus.SUCCESS, read.status());
            assertEquals(SIZE, read.byteLen());
            to.println("crc 0 " + SIZE);
            assertEquals(crc(me, 0, SIZE), from.readLine(), "read back what the other process holds");

            // SENDs both ways
            to.println("recv 4");
            assertEquals("ok", from.readLine());
            for (int i = 0; i < 4; i++) {
                me.qp.postSend(new SendWr().wrId(10 + i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(me.addr(i * 1000L), 100_000 + i, me.mr.lkey())));
            }
            for (int i = 0; i < 4; i++) {
                assertEquals(WcStatus.SUCCESS, await(me).status());
            }
            to.println("await 4");
            assertEquals("RECV:100000:0 RECV:100001:0 RECV:100002:0 RECV:100003:0", from.readLine());
            me.qp.postRecv(new RecvWr().wrId(20).sg(new Sge(me.addr(0), 1 << 20, me.mr.lkey())));
            to.println("send 500000");
            assertEquals("ok", from.readLine());
            WorkCompletion recv = await(me);
            assertEquals(WcOpcode.RECV, recv.opcode());
            assertEquals(500_000, recv.byteLen());
            assertEquals(0x1234, recv.immData());
            to.println("crc 0 500000");
            assertEquals(crc(me, 0, 500_000), from.readLine());
            to.println("await 1");
            assertEquals("SEND:500000:0", from.readLine());
            // the path the packets took: the other process's ring and this one's, or UDP both ways
            Counters c = me.ctx.counters();
            if (kind == LinkKind.SHM) {
                assertTrue(c.get(Counter.SHM_SENT) > 0 && c.get(Counter.SHM_RCVD) > 0, c.toString());
            } else {
                assertEquals(0, c.get(Counter.SHM_SENT) + c.get(Counter.SHM_RCVD), c.toString());
            }
            to.println("quit");
            assertEquals("bye", from.readLine());
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
        } finally {
            child.destroyForcibly();
        }
    }

    private static WorkCompletion await(Peer p) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (p.cq.poll(wcs) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 60 s; counters " + p.ctx.counters());
            }
            Thread.onSpinWait();
        }
        return wcs[0];
    }

    private static String crc(Peer p, long off, long len) {
        CRC32 c = new CRC32();
        c.update(p.buf.asSlice(off, len).asByteBuffer());
        return Long.toHexString(c.getValue());
    }
}

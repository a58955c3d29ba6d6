package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The counters file: published on open, counted into live, read by a view, retired on close, stale detection. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CountersFileTest {

    @TempDir
    Path dir;

    @BeforeEach
    void useTempDir() {
        System.setProperty("jrdma.counters.dir", dir.toString());
    }

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.counters.dir");
        System.clearProperty("jrdma.counters");
    }

    @Test
    void shouldPublishLiveCountersAndRetireOnClose() throws IOException {
        Path fa = dir.resolve("t-127.0.37.1.counters");
        Pair p = Pair.invoker("127.0.37.1", "127.0.37.2", 8192);
        boolean closed = false;
        try {
            assertTrue(Files.exists(fa), "file of the open device");
            try (CountersFile view = CountersFile.open(fa)) {
                assertEquals("t-127.0.37.1", view.device());
                assertEquals("127.0.37.1", view.address().getHostAddress());
                assertEquals(ProcessHandle.current().pid(), view.pid());
                assertFalse(view.closed());
                assertFalse(view.stale());
                assertEquals(Counter.values().length, view.names().size());
                assertEquals(Counter.PORT_XMIT_PACKETS.rxeName(), view.names().get(Counter.PORT_XMIT_PACKETS.ordinal()));

                p.b.qp.postRecv(new RecvWr().wrId(1).sg(new Sge(p.b.addr(0), 4096, p.b.mr.lkey())));
                p.a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(p.a.addr(0), 3000, p.a.mr.lkey())));
                assertEquals(WcStatus.SUCCESS, p.await(p.a.cq).status());
                assertEquals(WcStatus.SUCCESS, p.await(p.b.cq).status());

                Counters c = p.a.ctx.counters();
                for (Counter k : Counter.values()) {
                    assertEquals(c.get(k), view.value(k.rxeName()), k.rxeName());
                }
                assertEquals(3, view.value("port_xmit_packets"), "3 packets of MTU 1024");
                assertEquals(view.value("sent_pkts"), view.value("port_xmit_packets"));
                assertTrue(view.value("port_xmit_data") > 3000);
                assertEquals(1, view.value("rdma_sends"));
                assertEquals(1, p.b.ctx.counters().get(Counter.RDMA_RECVS));
                assertEquals(-1, view.value("no_such_counter"));

                List<CountersFile> listed = CountersFile.list(dir);
                try {
                    assertEquals(List.of("t-127.0.37.1", "t-127.0.37.2"),
                            listed.stream().map(CountersFile::device).toList());
                } finally {
                    listed.forEach(CountersFile::close);
                }
                p.close();
                closed = true;
                assertTrue(view.closed(), "marked closed on close");
                assertFalse(Files.exists(fa), "deleted on close");
                assertTrue(p.a.ctx.counters().get(Counter.SENT_PKTS) >= 3, "still readable after close");
            }
        } finally {
            if (!closed) {
                p.close();
            }
        }
    }

    @Test
    void shouldUseAnotherNameWhileALiveProcessHasTheFirst() {
        SoftDevice one = SoftDevice.builder().name("same").address("127.0.37.3").threading(Threading.INVOKER).build();
        SoftDevice two = SoftDevice.builder().name("same").address("127.0.37.4").threading(Threading.INVOKER).build();
        try (SoftContext a = one.open(); SoftContext b = two.open()) {
            assertTrue(Files.exists(dir.resolve("same.counters")));
            assertTrue(Files.exists(dir.resolve("same." + ProcessHandle.current().pid() + ".1.counters")));
            assertNotEquals(a, b);
        }
        assertEquals(List.of(), CountersFile.list(dir));
    }

    @Test
    void shouldDetectAFileLeftByAProcessThatIsGoneAndReplaceIt() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(10, TimeUnit.SECONDS));
        Path leftover = dir.resolve("left.counters");
        SoftDevice d = SoftDevice.builder().name("left").address("127.0.37.5").threading(Threading.INVOKER).build();
        try (SoftContext ctx = d.open()) {
            assertEquals(0, ctx.counters().get(Counter.SENT_PKTS));
            Files.copy(dir.resolve("left.counters"), dir.resolve("copy"));
        }
        Files.move(dir.resolve("copy"), leftover);
        try (FileChannel ch = FileChannel.open(leftover, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, gone.pid()),
                    CountersFile.OFF_PID);
        }
        try (CountersFile view = CountersFile.open(leftover)) {
            assertEquals(gone.pid(), view.pid());
            assertFalse(view.closed(), "a killed process never marked it closed");
            assertTrue(view.stale(), "its process is gone");
        }
        try (SoftContext ctx = d.open()) {
            assertEquals(0, ctx.counters().get(Counter.SENT_PKTS));
            try (CountersFile view = CountersFile.open(leftover)) {
                assertEquals(ProcessHandle.current().pid(), view.pid(), "the stale file was replaced");
            }
        }
    }

    @Test
    void shouldRejectFilesThatAreNotCountersFilesBadFlow() throws IOException {
        Path junk = Files.writeString(dir.resolve("junk.counters"), "not a counters file at all, no magic here at"
                + " all, and long enough to hold a header of one hundred and twenty bytes.................");
        assertThrows(IOException.class, () -> CountersFile.open(junk));
        Path empty = Files.createFile(dir.resolve("empty.counters"));
        assertThrows(IOException.class, () -> CountersFile.open(empty));
        assertEquals(List.of(), CountersFile.list(dir), "unreadable files are skipped");
    }

    @Test
    void shouldPublishNothingWhenDisabled() {
        System.setProperty("jrdma.counters", "off");
        SoftDevice d = SoftDevice.builder().name("off").address("127.0.37.6").threading(Threading.INVOKER).build();
        try (SoftContext ctx = d.open()) {
            assertFalse(Files.exists(dir.resolve("off.counters")));
            assertEquals(0, ctx.counters().get(Counter.SENT_PKTS));
        }
    }
}

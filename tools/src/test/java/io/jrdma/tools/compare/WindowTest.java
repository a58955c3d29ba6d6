package io.jrdma.tools.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream's measured interval opens only once both compilers are quiet: this process's (a figure the test sets) and
 * the peer's, reported over the control connection. The peer here is a plain socket that reads the window's lines
 * and writes the reports the test chooses.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WindowTest {

    private static final String HOST = "127.0.65.1";
    private static final int PORT = 18_991;
    private static final long MS = 1_000_000L;

    @Test
    void theIntervalWaitsForThePeersCompilerAndThenForThisOnes() throws Exception {
        CompletableFuture<Control> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                return Control.accept(HOST, PORT, 10_000);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (Socket peer = connect(); Control control = accepted.get(10, TimeUnit.SECONDS)) {
            peer.setSoTimeout(10_000);
            BufferedReader in = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                    StandardCharsets.UTF_8));
            OutputStream out = peer.getOutputStream();
            AtomicLong own = new AtomicLong(1);
            Window w = new Window(control, 0, 20 * MS, own::get);
            assertFalse(w.tick(0), "nothing arrived yet");
            assertFalse(w.tick(1));
            assertEquals(Control.JIT_ASK, in.readLine(), "the first message asks the peer for its compiler's work");

            // the peer's compiler works for 400 ms (a new figure in each report): no interval
            long peerWork = 0;
            long until = System.nanoTime() + 400 * MS;
            while (System.nanoTime() - until < 0) {
                send(out, Control.JIT + " " + ++peerWork);
                tickFor(w, 10 * MS);
            }
            assertEquals(-1, peek(peer, in), "no start while the peer's compiler works");

            // the peer is quiet; this process's compiler works for 300 ms more: still no interval
            until = System.nanoTime() + 300 * MS;
            while (System.nanoTime() - until < 0) {
                send(out, Control.JIT + " " + peerWork);
                own.incrementAndGet();
                tickFor(w, 10 * MS);
            }
            assertEquals(-1, peek(peer, in), "no start while this process's compiler works");

            // both quiet: the interval opens within a few looks
            long deadline = System.nanoTime() + 5_000 * MS;
            while (!control.stopped() && peek(peer, in) == -1) {
                assertTrue(System.nanoTime() - deadline < 0, "the interval never opened");
                send(out, Control.JIT + " " + peerWork);
                tickFor(w, 10 * MS);
            }
            assertEquals(Control.START, in.readLine());
            long t = System.nanoTime() + 5_000 * MS;
            while (!w.tick(2)) {
                assertTrue(System.nanoTime() - t < 0, "the interval never closed");
            }
            assertEquals(Control.STOP, in.readLine());
            assertEquals(0, w.messages(), "no message counted in the interval (the count stayed 2)");
            String warm = w.fields(8).replaceAll(".* warmup_ms=", "");
            assertTrue(Long.parseLong(warm) >= 700, "the warm-up lasted the compilers' work: " + warm + " ms");
            assertNull(control.poll("anything"), "reports are no queued lines");
        }
    }

    private static Socket connect() throws Exception {
        long deadline = System.nanoTime() + 10_000 * MS;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(HOST, PORT), 1_000);
                return s;
            } catch (java.net.ConnectException e) {
                s.close();
                assertTrue(System.nanoTime() - deadline < 0, "the control port never listened");
                Thread.sleep(20);
            }
        }
    }

    private static void send(OutputStream out, String line) throws Exception {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Ticks the window with a count of 2 (messages keep arriving) for about {@code ns}. */
    private static void tickFor(Window w, long ns) throws Exception {
        long end = System.nanoTime() + ns;
        while (System.nanoTime() - end < 0) {
            w.tick(2);
            Thread.sleep(1);
        }
    }

    /** The next byte the window sent, without taking it, or -1 when none is waiting. */
    private static int peek(Socket peer, BufferedReader in) throws Exception {
        if (in.ready()) {
            return 1;
        }
        return peer.getInputStream().available() > 0 ? 1 : -1;
    }
}

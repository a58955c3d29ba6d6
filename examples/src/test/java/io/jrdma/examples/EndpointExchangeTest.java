package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The side channel's receive while it drives a device ({@link EndpointExchange#driveWhileWaiting}, as a side in
 * invoker threading needs): a line that arrives in pieces comes whole, the device is driven while the receive waits,
 * the timeout still bounds the wait, and a peer that closes ends it.
 */
class EndpointExchangeTest {

    /** An exchange and the raw socket of its peer. */
    private record Pair(Socket peer, EndpointExchange exchange) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try {
                exchange.close();
            } finally {
                peer.close();
            }
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldDriveWhileWaitingAndKeepALineThatArrivesInPieces() throws Exception {
        try (Pair p = pair(Duration.ofSeconds(5))) {
            AtomicInteger driven = new AtomicInteger();
            p.exchange().driveWhileWaiting(driven::incrementAndGet);
            OutputStream out = p.peer().getOutputStream();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    out.write("do".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    Thread.sleep(100); // the receive times out meanwhile, drives, and must keep "do"
                    out.write("ne\r\nsecond\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            p.exchange().expect("done");
            assertTrue(driven.get() > 10, "driven " + driven.get() + " times while the line was incomplete");
            assertEquals("second", p.exchange().receive());
            writer.get(5, TimeUnit.SECONDS);

            p.peer().close();
            EOFException eof = assertThrows(EOFException.class, p.exchange()::receive);
            assertTrue(eof.getMessage().contains("closed the connection"), eof.getMessage());
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldStillTimeOutWhileDriving() throws Exception {
        try (Pair p = pair(Duration.ofMillis(300))) {
            AtomicInteger driven = new AtomicInteger();
            p.exchange().driveWhileWaiting(driven::incrementAndGet);
            long t0 = System.nanoTime();
            SocketTimeoutException e = assertThrows(SocketTimeoutException.class, p.exchange()::receive);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(e.getMessage().contains("sent nothing within 300 ms"), e.getMessage());
            assertTrue(ms >= 290 && ms < 5000, ms + " ms");
            assertTrue(driven.get() > 10, "driven " + driven.get() + " times in 300 ms");
        }
    }

    /** An exchange (the client side) with {@code timeout}, connected to a raw socket of this test. */
    private static Pair pair(Duration timeout) throws IOException {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            EndpointExchange exchange = EndpointExchange.client("127.0.0.1", listener.getLocalPort(), timeout);
            return new Pair(listener.accept(), exchange);
        }
    }
}

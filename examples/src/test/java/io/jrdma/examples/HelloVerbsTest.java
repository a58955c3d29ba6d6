package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** hello_verbs with server and client on two threads of this JVM (the two-process run is HelloVerbsProcessTest). */
class HelloVerbsTest {

    private static final String SERVER_ADDR = "127.0.3.21";
    private static final String CLIENT_ADDR = "127.0.3.22";

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldWriteHelloVerbsIntoServerBuffer() throws Exception {
        String port = Integer.toString(freeTcpPort());
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        ByteArrayOutputStream clientOut = new ByteArrayOutputStream();
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> HelloVerbs.run(
                new String[] {"server", "--addr", SERVER_ADDR, "--port", port}, print(serverOut), print(serverOut)));
        int client = HelloVerbs.run(new String[] {"client", "127.0.0.1", "--addr", CLIENT_ADDR, "--port", port},
                print(clientOut), print(clientOut));

        assertEquals(0, client, clientOut.toString(StandardCharsets.UTF_8));
        assertEquals(0, server.get(20, TimeUnit.SECONDS), serverOut.toString(StandardCharsets.UTF_8));
        assertTrue(serverOut.toString(StandardCharsets.UTF_8).contains("received: hello verbs\n"),
                serverOut.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldExitTwoOnBadArgumentsBadFlow() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, HelloVerbs.run(new String[0], print(err), print(err)));
        assertEquals(2, HelloVerbs.run(new String[] {"client"}, print(err), print(err)));
        assertEquals(2, HelloVerbs.run(new String[] {"server", "--port", "x"}, print(err), print(err)));
        assertEquals(2, HelloVerbs.run(new String[] {"server", "--bogus"}, print(err), print(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: hello-verbs server"));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldFailWithinTimeoutWhenNoServerBadFlow() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        int rc = HelloVerbs.run(new String[] {"client", "127.0.0.1", "--addr", CLIENT_ADDR, "--port",
            Integer.toString(freeTcpPort()), "--timeout", "0.5"}, print(out), print(out));
        assertEquals(1, rc);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("hello-verbs client: error: could not connect"),
                out.toString(StandardCharsets.UTF_8));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }
}

package io.jrdma.examples;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A one-connection TCP side channel for examples: exchanges {@link Endpoint}s and short text lines, one line per
 * message, each wait bounded by a timeout. The server accepts exactly one client; the client retries connecting
 * until the server listens or the timeout passes.
 *
 * <p>A side whose device has no engine thread of its own (invoker threading) answers its peer only while it calls
 * into the device: {@link #driveWhileWaiting} makes every receive drive the device while it waits for the peer.
 */
public final class EndpointExchange implements AutoCloseable {

    /** The default bound of every wait: 10 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private static final long RETRY_DELAY_MS = 100;
    private static final int MAX_LINE = 1024;
    /** How long one read waits before a receive that drives the device runs it again. */
    private static final int POLL_MS = 1;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final long timeoutMs;
    private final StringBuilder pending = new StringBuilder();
    private Runnable whileWaiting;

    private EndpointExchange(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        this.timeoutMs = Math.max(1, timeout.toMillis());
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs));
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Listens on TCP {@code port} (all addresses) and accepts one client within {@link #DEFAULT_TIMEOUT}. */
    public static EndpointExchange server(int port) throws IOException {
        return server(port, DEFAULT_TIMEOUT);
    }

    /**
     * Listens on TCP {@code port} (all addresses) and accepts one client.
     *
     * @throws SocketTimeoutException when no client connects within {@code timeout}
     */
    public static EndpointExchange server(int port, Duration timeout) throws IOException {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port));
            listener.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis())));
            try {
                return new EndpointExchange(listener.accept(), timeout);
            } catch (SocketTimeoutException e) {
                throw new SocketTimeoutException("no client connected to TCP port " + port + " within "
                        + seconds(timeout));
            }
        }
    }

    /** Connects to {@code host:port}, retrying for up to {@link #DEFAULT_TIMEOUT}. */
    public static EndpointExchange client(String host, int port) throws IOException {
        return client(host, port, DEFAULT_TIMEOUT);
    }

    /**
     * Connects to {@code host:port}, retrying while the server is not listening yet.
     *
     * @throws SocketTimeoutException when no connection is made within {@code timeout}
     */
    public static EndpointExchange client(String host, int port, Duration timeout) throws IOException {
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        IOException last = null;
        while (true) {
            long leftMs = (deadlineNs - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) {
                SocketTimeoutException e = new SocketTimeoutException("could not connect to " + host + ":" + port
                        + " within " + seconds(timeout) + " (is the server running?)");
                if (last != null) {
                    e.initCause(last);
                }
                throw e;
            }
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, leftMs));
                return new EndpointExchange(s, timeout);
            } catch (ConnectException | SocketTimeoutException e) {
                s.close();
                last = e;
            } catch (IOException e) {
                s.close();
                throw e;
            }
            try {
                Thread.sleep(Math.min(RETRY_DELAY_MS, leftMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting to " + host + ":" + port, e);
            }
        }
    }

    /** Sends {@code endpoint} as one line. */
    public void send(Endpoint endpoint) throws IOException {
        send(endpoint.encode());
    }

    /**
     * Receives one line and parses it as an {@link Endpoint}.
     *
     * @throws IOException on timeout, end of stream or a line that is not an endpoint
     */
    public Endpoint receiveEndpoint() throws IOException {
        String line = receive();
        try {
            return Endpoint.parse(line);
        } catch (IllegalArgumentException e) {
            throw new IOException("peer sent " + e.getMessage(), e);
        }
    }

    /** Sends {@code line} (which must not contain a line break) and a newline. */
    public void send(String line) throws IOException {
        if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("a message is one line");
        }
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /**
     * Makes every later receive run {@code progress} about every millisecond while it waits for the peer, as a side
     * in invoker threading must (its device answers the peer's packets only inside calls into it; a side blocked on
     * this socket would leave the peer's requests unanswered until its retries run out). The bound of a receive
     * stays the timeout.
     */
    public void driveWhileWaiting(Runnable progress) throws IOException {
        whileWaiting = progress;
        socket.setSoTimeout(POLL_MS);
    }

    /**
     * Receives one line, without its line break.
     *
     * @throws SocketTimeoutException when no complete line arrives within the timeout
     * @throws EOFException           when the peer closed the connection
     */
    public String receive() throws IOException {
        long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true) {
            int c;
            try {
                c = in.read();
            } catch (SocketTimeoutException e) {
                if (whileWaiting == null || System.nanoTime() - deadlineNs > 0) {
                    throw new SocketTimeoutException("peer " + socket.getRemoteSocketAddress() + " sent nothing within "
                            + timeoutMs + " ms");
                }
                whileWaiting.run();
                continue;
            }
            if (c < 0) {
                if (pending.isEmpty()) {
                    throw new EOFException("peer " + socket.getRemoteSocketAddress() + " closed the connection");
                }
                return take(); // a last line without its line break, as BufferedReader.readLine gives it
            }
            if (c == '\n') {
                return take();
            }
            if (pending.length() >= MAX_LINE) {
                throw new IOException("peer sent a line of more than " + MAX_LINE + " characters");
            }
            pending.append((char) c);
        }
    }

    /** The line received so far, without a carriage return before its end; starts the next one. */
    private String take() {
        int n = pending.length();
        String s = pending.substring(0, n > 0 && pending.charAt(n - 1) == '\r' ? n - 1 : n);
        pending.setLength(0);
        return s;
    }

    /**
     * Receives one line and checks it is {@code expected}.
     *
     * @throws IOException on timeout, end of stream or any other line
     */
    public void expect(String expected) throws IOException {
        String line = receive();
        if (!line.equals(expected)) {
            throw new IOException("expected '" + expected + "' from the peer, got '" + line + "'");
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}

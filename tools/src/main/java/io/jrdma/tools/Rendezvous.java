package io.jrdma.tools;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * The TCP connection of the C-style tools' out-of-band exchange (pingpong, perftest): the client retries while
 * the server is not listening yet, the server accepts one client, and both sockets get TCP_NODELAY and a read
 * timeout. A timeout of 0 means one connection attempt and no read timeout, as the real tools. Their reads spin for
 * the peer's item a while before they block ({@link #spinUntilReadable}).
 */
public final class Rendezvous {

    private static final long RETRY_DELAY_MS = 100;
    /**
     * How long a read of the exchange spins for the peer's item before it blocks, on a machine with more than one CPU.
     * A thread that blocks there is woken by the peer's item, and the kernel wakes it on the peer's core (a sync
     * wake-up: the waker is expected to sleep soon); after the exchange both sides spin in their poll loops instead,
     * one behind the other on that core, until the scheduler moves one. The default {@code ib_send_lat}'s first
     * iteration took 0.1 - 2.5 ms, and a spin switched out that long can set the callers' contended verdict, under
     * which every message of the next 100 ms is a sleep and a wake-up: in each of 7 such runs logged the verdict began
     * 1 - 20 ms into the run. Alternating in one window, 24 runs each: a p99 of 50 - 60 µs in 4 runs, in 1 with the
     * spin. Spinning, neither side sleeps between the items of the exchange.
     */
    public static final long SPIN_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final boolean SPINS = Runtime.getRuntime().availableProcessors() > 1;

    private Rendezvous() {
    }

    /** Connects to {@code host:port}, retrying every 100 ms while nobody listens, up to {@code timeoutMs}. */
    public static Socket connect(String host, int port, long timeoutMs) throws IOException {
        long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), millis(timeoutMs));
                return configure(s, timeoutMs);
            } catch (ConnectException e) {
                s.close();
                if (timeoutMs == 0 || System.nanoTime() - deadlineNs > 0) {
                    throw new ConnectException("Couldn't connect to " + host + ":" + port);
                }
            } catch (IOException e) {
                s.close();
                throw e;
            }
            try {
                Thread.sleep(RETRY_DELAY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting to " + host + ":" + port, e);
            }
        }
    }

    /** Listens on {@code port} (all addresses, SO_REUSEADDR) and accepts one client within {@code timeoutMs}. */
    public static Socket accept(int port, long timeoutMs) throws IOException {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            listener.setSoTimeout(millis(timeoutMs));
            try {
                return configure(listener.accept(), timeoutMs);
            } catch (SocketTimeoutException e) {
                throw new SocketTimeoutException("no client connected to TCP port " + port + " within " + timeoutMs
                        + " ms");
            }
        }
    }

    /**
     * Spins until {@code n} bytes can be read from {@code in} (a socket's), at most {@link #SPIN_NS} and only on a
     * machine with more than one CPU, running {@code drive} (null: nothing) about every {@code driveNs} meanwhile; the
     * read that follows takes what came, or blocks for the rest.
     */
    public static void spinUntilReadable(InputStream in, int n, Runnable drive, long driveNs) throws IOException {
        if (!SPINS) {
            return;
        }
        long start = System.nanoTime();
        long driveAt = start + driveNs;
        while (in.available() < n) {
            long now = System.nanoTime();
            if (now - start > SPIN_NS) {
                return;
            }
            if (drive != null && now - driveAt > 0) {
                drive.run();
                driveAt = now + driveNs;
            }
            Thread.onSpinWait();
        }
    }

    private static Socket configure(Socket s, long timeoutMs) throws IOException {
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(millis(timeoutMs));
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static int millis(long ms) {
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }
}

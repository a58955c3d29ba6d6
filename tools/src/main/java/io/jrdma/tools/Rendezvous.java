package io.jrdma.tools;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * The TCP connection of the C-style tools' out-of-band exchange (pingpong, perftest): the client retries while
 * the server is not listening yet, the server accepts one client, and both sockets get TCP_NODELAY and a read
 * timeout. A timeout of 0 means one connection attempt and no read timeout, as the real tools.
 */
public final class Rendezvous {

    private static final long RETRY_DELAY_MS = 100;

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

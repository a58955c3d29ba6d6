package io.jrdma.tools.scale;

import io.jrdma.tools.Rendezvous;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The one TCP connection of {@code jrdma scale}: a hello with the run's shape and this side's GID, rkey, buffer
 * address and data seed; then every QP's number and first PSN (8 bytes a QP, in QP order); then short tagged
 * barriers. Barriers are awaited with a callback that drives the device between checks, so a side whose engine runs
 * on its callers' threads (invoker mode) keeps answering its peer while it waits. Every wait is bounded.
 */
final class Exchange implements AutoCloseable {

    /** "JRDMASCL". */
    private static final long MAGIC = 0x4A52444D4153434CL;
    private static final int VERSION = 1;
    private static final long PARK_NS = 50_000;
    private static final long PEEK_EVERY_NS = 10_000_000;

    /** Barrier: every QP of the side is in RTS. */
    static final int READY = 1;
    /** Barrier: every send request of the side completed; the value is how many failed. */
    static final int SENT = 2;
    /** Barrier: the side checked what it received; the value is how many QPs had wrong or missing data. */
    static final int VERIFIED = 3;
    /** Barrier: the side measured its memory; the peer may release its QPs. */
    static final int MEASURED = 4;

    /**
     * What a side tells its peer first.
     *
     * @param qps      QPs per side
     * @param messages WRITEs and SENDs per QP
     * @param size     bytes per message
     * @param mtu      path MTU in bytes
     * @param gidHi    upper 64 bits of the GID the peer addresses this side by
     * @param gidLo    lower 64 bits of that GID
     * @param rkey     rkey of the area the peer WRITEs into
     * @param vaddr    address of that area
     * @param seed     seed of the data this side sends
     */
    record Hello(int qps, int messages, int size, int mtu, long gidHi, long gidLo, int rkey, long vaddr, long seed) {
    }

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final long timeoutMs;

    private Exchange(Socket socket, long timeoutMs) throws IOException {
        this.socket = socket;
        this.timeoutMs = timeoutMs;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs));
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** Binds the listening socket of a server ({@code port} 0: an ephemeral port), before the client is started. */
    static ServerSocket listen(int port) throws IOException {
        ServerSocket listener = new ServerSocket();
        try {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            return listener;
        } catch (IOException e) {
            listener.close();
            throw new IOException("cannot listen on TCP port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Accepts the one client within {@code timeoutMs}. */
    static Exchange accept(ServerSocket listener, long timeoutMs) throws IOException {
        listener.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs));
        Socket s;
        try {
            s = listener.accept();
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("no client connected to TCP port " + listener.getLocalPort() + " within "
                    + timeoutMs + " ms");
        }
        try {
            return new Exchange(s, timeoutMs);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** Connects to {@code host:port}, retrying while the server does not listen yet, up to {@code timeoutMs}. */
    static Exchange connect(String host, int port, long timeoutMs) throws IOException {
        Socket s = Rendezvous.connect(host, port, timeoutMs);
        try {
            return new Exchange(s, timeoutMs);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    void sendHello(Hello h) throws IOException {
        out.writeLong(MAGIC);
        out.writeInt(VERSION);
        out.writeInt(h.qps());
        out.writeInt(h.messages());
        out.writeInt(h.size());
        out.writeInt(h.mtu());
        out.writeLong(h.gidHi());
        out.writeLong(h.gidLo());
        out.writeInt(h.rkey());
        out.writeLong(h.vaddr());
        out.writeLong(h.seed());
        out.flush();
    }

    /**
     * Receives the peer's hello and checks that it describes the same run as {@code mine}.
     *
     * @throws IOException when the peer is not a scale side of this version or runs another shape
     */
    Hello receiveHello(Hello mine) throws IOException {
        long magic = in.readLong();
        if (magic != MAGIC) {
            throw new IOException("the peer is not a jrdma scale side (bad magic 0x" + Long.toHexString(magic) + ")");
        }
        int version = in.readInt();
        if (version != VERSION) {
            throw new IOException("the peer speaks scale exchange version " + version + ", this side " + VERSION);
        }
        Hello h = new Hello(in.readInt(), in.readInt(), in.readInt(), in.readInt(), in.readLong(), in.readLong(),
                in.readInt(), in.readLong(), in.readLong());
        if (h.qps() != mine.qps() || h.messages() != mine.messages() || h.size() != mine.size()
                || h.mtu() != mine.mtu()) {
            throw new IOException("the peer runs " + h.qps() + " QPs x " + h.messages() + " messages of " + h.size()
                    + " B at MTU " + h.mtu() + ", this side " + mine.qps() + " x " + mine.messages() + " of "
                    + mine.size() + " B at MTU " + mine.mtu() + ": give both sides the same -q, -n, -s and -m");
        }
        return h;
    }

    /** Sends every QP's number and first PSN. */
    void sendQps(int[] qpn, int[] psn) throws IOException {
        for (int i = 0; i < qpn.length; i++) {
            out.writeInt(qpn[i]);
            out.writeInt(psn[i]);
        }
        out.flush();
    }

    /** Receives the peer's QP numbers and first PSNs into the arrays (their length is the QP count). */
    void receiveQps(int[] qpn, int[] psn) throws IOException {
        for (int i = 0; i < qpn.length; i++) {
            qpn[i] = in.readInt();
            psn[i] = in.readInt();
            if ((qpn[i] & ~0xFFFFFF) != 0 || (psn[i] & ~0xFFFFFF) != 0) {
                throw new IOException("the peer sent QP " + i + " as qpn 0x" + Integer.toHexString(qpn[i]) + " psn 0x"
                        + Integer.toHexString(psn[i]) + ", not 24-bit values");
            }
        }
    }

    /** Sends barrier {@code tag} with {@code value}. */
    void signal(int tag, int value) throws IOException {
        out.writeInt(tag);
        out.writeInt(value);
        out.flush();
    }

    /**
     * Waits for the peer's barrier {@code tag}, running {@code drive} between checks, and returns its value.
     *
     * @throws IOException on a timeout, the end of the connection or another tag
     */
    int await(int tag, Runnable drive) throws IOException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long nextPeek = System.nanoTime();
        while (in.available() < 8) {
            drive.run();
            long now = System.nanoTime();
            if (now - deadline > 0) {
                throw new SocketTimeoutException("the peer sent no barrier " + tag + " within " + timeoutMs + " ms");
            }
            if (now - nextPeek >= 0) {
                checkOpen(tag); // available() cannot tell the end of the stream; a short read can
                nextPeek = now + PEEK_EVERY_NS;
            } else {
                LockSupport.parkNanos(PARK_NS);
            }
        }
        int got = in.readInt();
        int value = in.readInt();
        if (got != tag) {
            throw new IOException("expected barrier " + tag + " from the peer, got " + got);
        }
        return value;
    }

    /** A read of at most 1 ms that leaves the byte read in the buffer: fails when the peer closed the connection. */
    private void checkOpen(int tag) throws IOException {
        socket.setSoTimeout(1);
        try {
            in.mark(1);
            if (in.read() < 0) {
                throw new EOFException("the peer closed the connection before barrier " + tag);
            }
            in.reset();
        } catch (SocketTimeoutException e) {
            // nothing yet: still open
        } finally {
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs));
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

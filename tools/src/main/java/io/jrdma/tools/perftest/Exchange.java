package io.jrdma.tools.perftest;

import io.jrdma.examples.QpConnect;
import io.jrdma.tools.Rendezvous;
import io.jrdma.verbs.Gid;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * perftest's out-of-band TCP exchange ("Data ex. method : Ethernet"), byte for byte as perftest 4.5 (protocol
 * version 6.06) speaks it. Every exchange is symmetric: the client writes its item, then reads the server's; the
 * server reads, then writes. Each item goes out in one {@code write} (one TCP segment with TCP_NODELAY), because
 * perftest reads each with a single {@code read} that must return the whole item.
 *
 * <p>The items, in the order the tools use them:
 * <ol>
 *   <li>version: 16 bytes, the NUL-padded string "6.06"; perftest refuses peers older than 5.70;</li>
 *   <li>system data: the page size used as cycle buffer, then the cache line size, each a big-endian int; each
 *       side keeps the larger of the two values;</li>
 *   <li>MTU: the {@code "%d"} text of the ibv_mtu enum (3 = 1024) and its NUL, 2 bytes; each side uses the
 *       smaller;</li>
 *   <li>handshakes ({@link Dest}): per QP before connecting, per QP after, and whole-test synchronisations;</li>
 *   <li>bandwidth reports (RDMA WRITE/READ/atomic bandwidth): 5 big-endian 8-byte values;</li>
 *   <li>close: a last handshake, then each side writes {@code "done"} with its NUL and closes without reading the
 *       other's.</li>
 * </ol>
 */
final class Exchange implements Closeable {

    /** The protocol version jrdma speaks (perftest 4.5+0.17 sends "6.06"). */
    static final String VERSION = "6.06";
    /** sizeof(user_param->version). */
    static final int VERSION_BYTES = 16;
    /** perftest refuses to talk to anything older. */
    static final double MIN_REMOTE_VERSION = 5.70;
    /** sizeof "0000:0000:000000:000000:00000000:0000000000000000:" + 16 x "00:" + "00000000:". */
    static final int KEY_MSG_SIZE_GID = 108;
    /** sizeof "0000:0000:000000:000000:00000000:0000000000000000:00000000". */
    static final int KEY_MSG_SIZE = 59;
    /** The MTU item: sizeof(char[2]). */
    static final int MTU_BYTES = 2;

    private static final int DONE_WAIT_MS = 2000;
    /** How often a read that drives the device wakes up to do so ({@link #driveWhileWaiting}). */
    private static final int POLL_MS = 1;
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(POLL_MS);
    private static final int DONE_BYTES = 5;

    /** One QP's address as the handshake carries it (struct pingpong_dest). */
    record Dest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {

        /** The message, NUL-terminated: {@value #KEY_MSG_SIZE_GID} bytes with a GID, {@value #KEY_MSG_SIZE} without. */
        byte[] toWire(boolean withGid) {
            StringBuilder sb = new StringBuilder(KEY_MSG_SIZE_GID);
            sb.append(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:", lid, outReads, qpn, psn, rkey,
                    vaddr));
            if (withGid) {
                for (byte b : gid.toBytes()) {
                    sb.append(String.format(Locale.ROOT, "%02x:", b & 0xff));
                }
                sb.append(String.format(Locale.ROOT, "%08x:", srqn));
            } else {
                sb.append(String.format(Locale.ROOT, "%08x", srqn));
            }
            int bytes = withGid ? KEY_MSG_SIZE_GID : KEY_MSG_SIZE;
            if (sb.length() != bytes - 1) {
                throw new IllegalStateException("handshake message '" + sb + "' is not " + (bytes - 1) + " characters");
            }
            return Arrays.copyOf(sb.toString().getBytes(StandardCharsets.US_ASCII), bytes);
        }

        /**
         * The handshake over rdma_cm (rdma_write_keys): struct pingpong_dest as perftest copies it, 56 bytes, every
         * field big-endian (lid, out_reads, qpn, psn, rkey, 4 bytes of padding, vaddr, the GID's 16 bytes, srqn,
         * gid_index: 0 until perftest's set_up_connection has filled the address in, the GID index in use after).
         */
        byte[] toBinary(int gidIndex) {
            ByteBuffer b = ByteBuffer.allocate(CmComm.BUF_BYTES);
            b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr);
            b.put(gid.toBytes()).putInt(srqn).putInt(gidIndex);
            return b.array();
        }

        /**
         * A peer's {@link #toBinary} message, read as rdma_read_keys reads it: srqn is not taken from it, and the GID
         * only when the message has one.
         */
        static Dest fromBinary(byte[] msg) {
            ByteBuffer b = ByteBuffer.wrap(msg);
            int lid = b.getInt();
            int outReads = b.getInt();
            int qpn = b.getInt();
            int psn = b.getInt();
            int rkey = b.getInt();
            b.getInt();
            long vaddr = b.getLong();
            byte[] raw = new byte[16];
            b.get(raw);
            return new Dest(lid, outReads, qpn, psn, rkey, vaddr, Gid.of(raw), 0);
        }

        /** The QP's part, for {@link QpConnect}. */
        QpConnect.Address address() {
            return new QpConnect.Address(lid, qpn, psn, gid);
        }

        /** Parses a peer's message as perftest's ethernet_read_keys does (hex fields separated by ':'). */
        static Dest fromWire(byte[] msg, boolean withGid) {
            int n = 0;
            while (n < msg.length && msg[n] != 0) {
                n++;
            }
            String s = new String(msg, 0, n, StandardCharsets.US_ASCII);
            String[] f = s.split(":", -1);
            int fields = withGid ? 6 + 16 + 1 : 7;
            if (f.length < fields) {
                throw new IllegalArgumentException("Couldn't parse line <" + s + ">");
            }
            try {
                Gid gid = Gid.ZERO;
                if (withGid) {
                    byte[] raw = new byte[16];
                    for (int i = 0; i < 16; i++) {
                        raw[i] = (byte) Integer.parseInt(f[6 + i], 16);
                    }
                    gid = Gid.of(raw);
                }
                return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                        Integer.parseInt(f[3], 16), (int) Long.parseLong(f[4], 16), Long.parseUnsignedLong(f[5], 16),
                        gid, (int) Long.parseLong(f[fields - 1], 16));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Couldn't parse line <" + s + ">", e);
            }
        }
    }

    /** What a bandwidth test reports to its peer (struct bw_report_data, without the per-port fields). */
    record BwReport(long size, long iters, double bwPeak, double bwAvg, double msgRateAvg) {
        static final BwReport EMPTY = new BwReport(0, 0, 0, 0, 0);
    }

    private final Socket socket;
    /** With {@code -R}: the RDMA connection every item travels over instead of {@link #socket} (null otherwise). */
    private final CmComm comm;
    private final boolean client;
    private final InputStream in;
    private final OutputStream out;

    /** With {@link #comm}: the gid_index field of the handshakes ({@link #binaryGidIndex(int)}). */
    private int binaryGidIndex;

    /** Run while a read waits for the peer ({@link #driveWhileWaiting}); null: reads just block. */
    private Runnable whileWaiting;
    /** With {@link #whileWaiting}: the most a read may wait in all (0: no limit), the socket's timeout before. */
    private long readLimitMs;

    private Exchange(Socket socket, boolean client) throws IOException {
        this.socket = socket;
        this.comm = null;
        this.client = client;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    private Exchange(CmComm comm, boolean client) {
        this.socket = null;
        this.comm = comm;
        this.client = client;
        this.in = null;
        this.out = null;
    }

    /** {@code -R}: the client's exchange over an rdma_cm connection to {@code host:port} ({@link CmComm}). */
    static Exchange connectCm(String host, int port, long timeoutMs) throws IOException {
        return new Exchange(CmComm.connect(host, port, timeoutMs), true);
    }

    /** {@code -R}: the server's exchange over the rdma_cm connection it accepts on {@code port}. */
    static Exchange acceptCm(int port, long timeoutMs) throws IOException {
        return new Exchange(CmComm.accept(port, timeoutMs), false);
    }

    /**
     * Makes every later read run {@code progress} about every millisecond while it waits for the peer. A device in
     * invoker mode is driven only by calls into it, so a side blocked on this socket (the server of a WRITE or READ
     * test, waiting for the client's report) would otherwise leave the client's requests unanswered until its
     * retries run out. The read's time limit stays what the socket had.
     */
    void driveWhileWaiting(Runnable progress) throws IOException {
        if (comm != null) {
            comm.driveWhileWaiting(progress);
            return;
        }
        readLimitMs = socket.getSoTimeout();
        socket.setSoTimeout(POLL_MS);
        whileWaiting = progress;
    }

    /** The client: connects to {@code host:port}, retrying while nobody listens, up to {@code timeoutMs} (0: once). */
    static Exchange connect(String host, int port, long timeoutMs) throws IOException {
        return open(Rendezvous.connect(host, port, timeoutMs), true);
    }

    /** The server: listens on {@code port} (all addresses, SO_REUSEADDR) and accepts one client. */
    static Exchange accept(int port, long timeoutMs) throws IOException {
        return open(Rendezvous.accept(port, timeoutMs), false);
    }

    private static Exchange open(Socket s, boolean client) throws IOException {
        try {
            return new Exchange(s, client);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** One symmetric exchange of equal-sized items (ctx_xchg_data). */
    byte[] exchange(byte[] mine, String what) throws IOException {
        if (client) {
            write(mine);
            return read(mine.length, what);
        }
        byte[] theirs = read(mine.length, what);
        write(mine);
        return theirs;
    }

    /** Exchanges versions; fails as perftest does when the peer's is older than 5.70. */
    String exchangeVersions() throws IOException {
        byte[] v = Arrays.copyOf(VERSION.getBytes(StandardCharsets.US_ASCII), VERSION_BYTES);
        String remote = cString(exchange(v, "the remote version"));
        if (atof(remote) < MIN_REMOTE_VERSION) {
            throw new IOException("Current implementation is not compatible with versions older than 5.70 (the peer"
                    + " sent '" + remote + "')");
        }
        return remote;
    }

    /** Exchanges the cycle buffer (page) and cache line sizes (check_sys_data); returns the peer's pair. */
    int[] exchangeSysData(int cycleBuffer, int cacheLine) throws IOException {
        int remoteCycle = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cycleBuffer).array(),
                "the remote page size")).getInt();
        int remoteLine = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cacheLine).array(),
                "the remote cache line size")).getInt();
        return new int[] {remoteCycle, remoteLine};
    }

    /** Exchanges the ibv_mtu codes (check_mtu); returns the peer's, or 0 when it sent no number. */
    int exchangeMtu(int mtuCode) throws IOException {
        byte[] mine = Arrays.copyOf(Integer.toString(mtuCode).getBytes(StandardCharsets.US_ASCII), MTU_BYTES);
        mine[MTU_BYTES - 1] = 0;
        String remote = cString(exchange(mine, "the remote MTU"));
        try {
            return Integer.parseInt(remote.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** One handshake (ctx_hand_shake): sends {@code mine}, returns the peer's address. */
    Dest handshake(Dest mine, boolean withGid) throws IOException {
        if (comm != null) {
            return Dest.fromBinary(exchange(mine.toBinary(binaryGidIndex), "the remote address"));
        }
        byte[] theirs = exchange(mine.toWire(withGid), "the remote address");
        return Dest.fromWire(theirs, withGid);
    }

    /** With {@code -R}: the GID index the handshakes carry from now on (perftest's my_dest[].gid_index). */
    void binaryGidIndex(int gidIndex) {
        binaryGidIndex = gidIndex;
    }

    /** Exchanges bandwidth reports (xchg_bw_reports for a peer of version 5.33 or later). */
    BwReport exchangeReports(BwReport mine) throws IOException {
        long size = exchange8(mine.size());
        long iters = exchange8(mine.iters());
        double peak = Double.longBitsToDouble(exchange8(Double.doubleToRawLongBits(mine.bwPeak())));
        double avg = Double.longBitsToDouble(exchange8(Double.doubleToRawLongBits(mine.bwAvg())));
        double rate = Double.longBitsToDouble(exchange8(Double.doubleToRawLongBits(mine.msgRateAvg())));
        return new BwReport(size, iters, peak, avg, rate);
    }

    private long exchange8(long v) throws IOException {
        return ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putLong(v).array(), "the remote report")).getLong();
    }

    /**
     * ctx_close_connection: a last handshake, then "done" with its NUL. perftest closes without reading the peer's
     * "done"; jrdma waits up to {@value #DONE_WAIT_MS} ms for it first, so that closing a socket with unread data
     * never resets the connection under a peer that is still reading.
     */
    void closeConnection(Dest mine, boolean withGid) throws IOException {
        handshake(mine, withGid);
        if (comm != null) {
            return; // over rdma_cm perftest sends no "done"
        }
        write("done\0".getBytes(StandardCharsets.US_ASCII));
        try {
            socket.setSoTimeout(DONE_WAIT_MS);
            in.readNBytes(DONE_BYTES);
        } catch (IOException e) {
            // the peer's "done" is a courtesy: perftest itself never reads it
        }
    }

    private void write(byte[] b) throws IOException {
        if (comm != null) {
            comm.write(b);
            return;
        }
        out.write(b);
        out.flush();
    }

    private byte[] read(int n, String what) throws IOException {
        if (comm != null) {
            return comm.read(n, what);
        }
        Rendezvous.spinUntilReadable(in, n, whileWaiting, POLL_NS); // so that it is not woken next to its peer
        if (whileWaiting != null) {
            return readDriving(n, what);
        }
        byte[] b = new byte[n];
        try {
            new DataInputStream(in).readFully(b);
        } catch (EOFException e) {
            throw new EOFException("the peer closed the connection: Couldn't read " + what);
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("timed out reading " + what);
        }
        return b;
    }

    /** {@link #read} that runs {@link #whileWaiting} each time the socket's short timeout passes. */
    private byte[] readDriving(int n, String what) throws IOException {
        byte[] b = new byte[n];
        long deadline = readLimitMs > 0 ? System.nanoTime() + readLimitMs * 1_000_000L : Long.MAX_VALUE;
        int got = 0;
        while (got < n) {
            try {
                int k = in.read(b, got, n - got);
                if (k < 0) {
                    throw new EOFException("the peer closed the connection: Couldn't read " + what);
                }
                got += k;
            } catch (SocketTimeoutException e) {
                if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) {
                    throw new SocketTimeoutException("timed out reading " + what);
                }
                whileWaiting.run();
            }
        }
        return b;
    }

    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    /** C's atof: the longest leading decimal number, 0 when there is none. */
    static double atof(String s) {
        int end = 0;
        while (end < s.length() && (Character.isDigit(s.charAt(end)) || s.charAt(end) == '.')) {
            end++;
        }
        try {
            return end == 0 ? 0 : Double.parseDouble(s.substring(0, end));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public void close() throws IOException {
        if (comm != null) {
            comm.close();
            return;
        }
        socket.close();
    }
}

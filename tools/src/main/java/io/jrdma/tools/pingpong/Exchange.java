package io.jrdma.tools.pingpong;

import io.jrdma.examples.QpConnect;
import io.jrdma.tools.Rendezvous;
import io.jrdma.verbs.Gid;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The TCP out-of-band exchange of ibv_rc_pingpong / ibv_ud_pingpong, byte for byte: the client connects to port
 * 18515 and writes its address as the fixed-size C string {@code "%04x:%06x:%06x:%s"} (LID, QPN, PSN, GID as 32 hex
 * digits of the raw bytes) with its NUL, {@value #MESSAGE_BYTES} bytes; the server reads it, connects its QP (the
 * callback), answers with its own message, and reads the client's {@code "done"} (5 bytes with the NUL), which the
 * client writes right after reading the answer. Then both close the connection.
 */
final class Exchange {

    /** sizeof "0000:000000:000000:00000000000000000000000000000000". */
    static final int MESSAGE_BYTES = 52;
    /** sizeof "done". */
    static final int DONE_BYTES = 5;

    /** One side's address: what the message carries. */
    record Dest(int lid, int qpn, int psn, Gid gid) {

        /** The QP's part, for {@link QpConnect}. */
        QpConnect.Address address() {
            return new QpConnect.Address(lid, qpn, psn, gid);
        }

        /** The message, NUL-terminated, exactly {@link #MESSAGE_BYTES} bytes. */
        byte[] toWire() {
            String s = String.format("%04x:%06x:%06x:%016x%016x", lid, qpn, psn, gid.hi(), gid.lo());
            byte[] b = Arrays.copyOf(s.getBytes(StandardCharsets.US_ASCII), MESSAGE_BYTES);
            if (s.length() != MESSAGE_BYTES - 1) {
                throw new IllegalStateException("address message '" + s + "' is not " + (MESSAGE_BYTES - 1)
                        + " characters");
            }
            return b;
        }

        /** Parses a peer's message as the real tools' sscanf("%x:%x:%x:%s") does. */
        static Dest fromWire(byte[] msg) {
            int n = 0;
            while (n < msg.length && msg[n] != 0) {
                n++;
            }
            String s = new String(msg, 0, n, StandardCharsets.US_ASCII);
            String[] f = s.split(":", -1);
            if (f.length != 4 || f[3].length() != 32) {
                throw new IllegalArgumentException("bad address message from the peer: '" + s + "'");
            }
            try {
                return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                        Gid.of(Long.parseUnsignedLong(f[3], 0, 16, 16), Long.parseUnsignedLong(f[3], 16, 32, 16)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad address message from the peer: '" + s + "'", e);
            }
        }

        /** GRH-less peers send the zero GID; a non-zero interface id means the peer needs a GRH. */
        boolean needsGrh() {
            return gid.lo() != 0;
        }
    }

    /** What the server does between reading the client's address and answering: connect its QP. */
    interface Connector {
        void connect(Dest remote) throws Exception;
    }

    private Exchange() {
    }

    /**
     * The client side: connects to {@code host:port} (retrying while nobody listens, up to {@code timeoutMs}; 0 =
     * one attempt, as the real tool), sends {@code local}, reads the server's address and answers "done".
     */
    static Dest client(String host, int port, Dest local, long timeoutMs) throws IOException {
        try (Socket s = Rendezvous.connect(host, port, timeoutMs)) {
            OutputStream out = s.getOutputStream();
            out.write(local.toWire());
            out.flush();
            byte[] msg = readFully(s.getInputStream(), MESSAGE_BYTES, "the remote address");
            out.write("done\0".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return Dest.fromWire(msg);
        }
    }

    /**
     * The server side: listens on {@code port} (all addresses), accepts one client, reads its address, runs
     * {@code connector}, answers with {@code local} and reads "done".
     */
    static Dest server(int port, Dest local, Connector connector, long timeoutMs) throws Exception {
        try (Socket conn = Rendezvous.accept(port, timeoutMs)) {
            Dest remote = Dest.fromWire(readFully(conn.getInputStream(), MESSAGE_BYTES, "the remote address"));
            connector.connect(remote);
            OutputStream out = conn.getOutputStream();
            out.write(local.toWire());
            out.flush();
            byte[] done = readFully(conn.getInputStream(), DONE_BYTES, "\"done\"");
            if (!new String(done, 0, 4, StandardCharsets.US_ASCII).equals("done")) {
                throw new IOException("expected \"done\" from the client, got '"
                        + new String(done, StandardCharsets.US_ASCII) + "'");
            }
            return remote;
        }
    }

    private static byte[] readFully(InputStream in, int n, String what) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        Rendezvous.spinUntilReadable(in, n, null, 0); // so that it is not woken next to its peer
        try {
            while (got < n) {
                int r = in.read(b, got, n - got);
                if (r < 0) {
                    throw new EOFException(got + "/" + n + ": Couldn't read " + what);
                }
                got += r;
            }
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("timed out reading " + what + " (" + got + "/" + n + " bytes)");
        }
        return b;
    }
}

package io.jrdma.tools.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * The Java NIO baselines, written as a Java engineer would: blocking {@link SocketChannel}s with direct buffers for
 * the TCP stream (the bw, read-bw reference and msg-rate scenarios), connected {@link DatagramChannel}s for the UDP
 * ping-pong. The data connection is separate from the control connection ({@code dataport}).
 *
 * <p>Stream: the client writes {@code size}-byte messages, each carrying {@code k + 1} in its first and last 8
 * bytes; the server reads each message fully into one {@code size}-byte buffer and checks both words. Message rate:
 * 2-byte messages carrying {@code k} (mod 2^16); framing {@code each} writes every message with its own
 * {@code write} call (one system call per message), {@code buffered} collects them in a 64 KiB buffer written
 * when full (as a BufferedOutputStream would); the server reads into a 64 KiB buffer and checks every message.
 * Both leave Nagle's algorithm on (the default), which batches small writes in the kernel.
 */
final class NioBench {

    private static final int RATE_BUFFER = 64 * 1024;
    private static final short UDP_STOP = (short) 0xFFFF;

    private NioBench() {
    }

    private interface Binding {
        void bind() throws IOException;
    }

    /** Binds, naming the address and port (the runner's --port + 1) when it is taken. */
    private static void bind(Binding b, String what, Params p) throws IOException {
        try {
            b.bind();
        } catch (java.net.BindException e) {
            throw new java.net.BindException("cannot bind " + what + " " + p.str("self") + ":" + p.integer("dataport")
                    + " (" + e.getMessage() + "; choose another --port)");
        }
    }

    // ------------------------------------------------------------------------------------------------- TCP

    private static SocketChannel accept(Params p, Control control, Deadline deadline) throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.INET)) {
            listener.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, true);
            bind(() -> listener.bind(new InetSocketAddress(p.str("self"), p.integer("dataport")), 1), "TCP", p);
            listener.configureBlocking(false);
            control.send("ready");
            while (true) {
                SocketChannel ch = listener.accept();
                if (ch != null) {
                    ch.configureBlocking(true);
                    return ch;
                }
                deadline.check("accepting the TCP data connection");
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private static SocketChannel connect(Params p, Control control, Deadline deadline) throws Exception {
        control.await("ready", deadline.nanos());
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.INET);
        try {
            ch.bind(new InetSocketAddress(p.str("self"), 0));
            ch.connect(new InetSocketAddress(p.str("peer"), p.integer("dataport")));
            return ch;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    /** TCP stream server (receiver, measures). */
    static String streamReceive(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        Window window = new Window(control, p.lng("warmup_ms") * 1_000_000L, p.lng("duration_ms") * 1_000_000L);
        try (SocketChannel ch = accept(p, control, deadline)) {
            ByteBuffer msg = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
            long count = 0;
            while (true) {
                msg.clear();
                boolean eof = false;
                while (msg.hasRemaining()) {
                    if (ch.read(msg) < 0) {
                        eof = true;
                        break;
                    }
                }
                if (eof) {
                    if (msg.position() != 0) {
                        throw new BenchFailure("the stream ended inside message " + count);
                    }
                    break;
                }
                long want = count + 1;
                if (msg.getLong(0) != want || msg.getLong(size - 8) != want) {
                    throw new BenchFailure("TCP message " + count + ": words " + msg.getLong(0) + " / "
                            + msg.getLong(size - 8) + ", expected " + want);
                }
                count++;
                window.tick(count);
                if ((count & 63) == 0) {
                    deadline.check("reading the TCP stream");
                }
            }
            return finish(control, deadline, window, count, size);
        }
    }

    /** TCP stream client (sender). */
    static String streamSend(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        long corrupt = p.lng("corrupt", -1);
        try (SocketChannel ch = connect(p, control, deadline)) {
            ByteBuffer msg = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
            long k = 0;
            while (!control.stopped()) {
                long s = k + 1;
                msg.clear();
                msg.putLong(0, k == corrupt ? ~s : s).putLong(size - 8, s);
                while (msg.hasRemaining()) {
                    ch.write(msg);
                }
                k++;
                if ((k & 63) == 0) {
                    deadline.check("writing the TCP stream");
                }
            }
            ch.shutdownOutput();
            return done(control, deadline, k, () -> { });
        }
    }

    /** TCP 2-byte message server (receiver, measures). */
    static String rateReceive(Params p, Control control, Deadline deadline) throws Exception {
        Window window = new Window(control, p.lng("warmup_ms") * 1_000_000L, p.lng("duration_ms") * 1_000_000L);
        try (SocketChannel ch = accept(p, control, deadline)) {
            ByteBuffer in = ByteBuffer.allocateDirect(RATE_BUFFER).order(ByteOrder.LITTLE_ENDIAN);
            long count = 0;
            while (true) {
                if (ch.read(in) < 0) {
                    if (in.position() != 0) {
                        throw new BenchFailure("the stream ended inside message " + count);
                    }
                    break;
                }
                in.flip();
                while (in.remaining() >= 2) {
                    short v = in.getShort();
                    if (v != (short) count) {
                        throw new BenchFailure("TCP message " + count + ": value " + v + ", expected "
                                + (short) count);
                    }
                    count++;
                }
                in.compact();
                window.tick(count);
                deadline.check("reading 2-byte TCP messages");
            }
            return finish(control, deadline, window, count, 2);
        }
    }

    /** TCP 2-byte message client (sender), framing {@code each} or {@code buffered}. */
    static String rateSend(Params p, Control control, Deadline deadline) throws Exception {
        boolean buffered = p.str("framing").equals("buffered");
        long corrupt = p.lng("corrupt", -1);
        try (SocketChannel ch = connect(p, control, deadline)) {
            ByteBuffer out = ByteBuffer.allocateDirect(buffered ? RATE_BUFFER : 2).order(ByteOrder.LITTLE_ENDIAN);
            long k = 0;
            while (!control.stopped()) {
                out.putShort(k == corrupt ? (short) (k + 7) : (short) k);
                k++;
                if (!out.hasRemaining()) {
                    writeAll(ch, out);
                }
                if ((k & 1023) == 0) {
                    deadline.check("writing 2-byte TCP messages");
                }
            }
            writeAll(ch, out);
            ch.shutdownOutput();
            return done(control, deadline, k, () -> { });
        }
    }

    private static void writeAll(SocketChannel ch, ByteBuffer b) throws IOException {
        b.flip();
        while (b.hasRemaining()) {
            ch.write(b);
        }
        b.clear();
    }

    /** The sender's end: report the count, wait for the receiver to have it all, running {@code pump} meanwhile. */
    static String done(Control control, Deadline deadline, long sent, Runnable pump) throws Exception {
        control.send("done " + sent);
        control.await("fin", deadline.nanos(), pump);
        return Window.peerFields(control) + " msgs_sent=" + sent;
    }

    /** The receiver's end: the sender's count must be what arrived. */
    static String finish(Control control, Deadline deadline, Window window, long count, int size)
            throws Exception {
        if (!window.done()) {
            throw new IllegalStateException("the stream ended before the measured interval did");
        }
        long sent = Long.parseLong(control.await("done", deadline.nanos()).args()[0]);
        if (sent != count) {
            throw new BenchFailure("received " + count + " messages, the sender sent " + sent);
        }
        control.send("fin");
        return window.fields(size);
    }

    // ------------------------------------------------------------------------------------------------- UDP

    private static DatagramChannel udp(Params p) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            bind(() -> ch.bind(new InetSocketAddress(p.str("self"), p.integer("dataport"))), "UDP", p);
            ch.connect(new InetSocketAddress(p.str("peer"), p.integer("dataport")));
            ch.configureBlocking(p.str("mode").equals("blocking"));
            return ch;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** UDP ping-pong client: times round trips (busy: non-blocking read spin; blocking: blocking read). */
    static String udpPing(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        control.await("ready", deadline.nanos());
        try (DatagramChannel ch = udp(p)) {
            ByteBuffer out = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer in = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
            Latencies lat = new Latencies(p.integer("iters"));
            Measured m = new Measured(p, System.nanoTime());
            for (long i = 0; ; i++) {
                short v = (short) (i % 0xFFFF);
                out.clear();
                out.putShort(0, v);
                long t0 = System.nanoTime();
                ch.write(out);
                in.clear();
                while (ch.read(in) == 0) {
                    Thread.onSpinWait();
                    deadline.check("waiting for a UDP echo");
                }
                long t1 = System.nanoTime();
                if (in.position() != size || in.getShort(0) != v) {
                    throw new BenchFailure("round trip " + i + ": echo of " + in.position() + " bytes, "
                            + in.getShort(0) + ", sent " + v);
                }
                if (m.measures(t0) && (!lat.add(t1 - t0) || m.over(t1))) {
                    break;
                }
            }
            out.clear();
            out.putShort(0, UDP_STOP);
            ch.write(out);
            control.send(Control.STOP);
            control.await("fin", deadline.nanos());
            return lat.fields() + m.field();
        }
    }

    /** UDP ping-pong server: echoes until the stop datagram, or the client's stop closes the channel. */
    static String udpPong(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        long corrupt = p.lng("corrupt", -1);
        try (DatagramChannel ch = udp(p)) {
            control.onStop(() -> closeQuietly(ch)); // unblocks a blocking read if the stop datagram was lost
            control.send("ready");
            ByteBuffer buf = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
            try {
                for (long i = 0; ; i++) {
                    buf.clear();
                    while (ch.read(buf) == 0) {
                        Thread.onSpinWait();
                        deadline.check("waiting for a UDP ping");
                    }
                    if (buf.getShort(0) == UDP_STOP) {
                        break;
                    }
                    if (i == corrupt) {
                        buf.putShort(0, (short) (buf.getShort(0) + 1));
                    }
                    buf.flip();
                    ch.write(buf);
                }
            } catch (ClosedChannelException e) {
                // the client is done
            }
            control.send("fin");
            return "echoed=1";
        }
    }
}

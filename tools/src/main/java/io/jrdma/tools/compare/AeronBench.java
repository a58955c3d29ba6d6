package io.jrdma.tools.compare;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The Aeron baseline: UDP unicast between two processes, each with its own embedded {@link MediaDriver} (its own
 * Aeron directory, given by the runner under /dev/shm, deleted when the driver closes) and one {@link Aeron} client.
 *
 * <p>Configuration (parameters {@code aeron_*}, defaults chosen by the runner): the driver's threading mode
 * (INVOKER: the application thread runs the driver's and the client conductor's duty cycles through their agent
 * invokers, so each process has one busy thread, as jrdma's invoker engine; SHARED, SHARED_NETWORK, DEDICATED:
 * driver threads),
 * the idle strategy of the driver and the application ({@code busy}: busy spin, {@code backoff}: spin, yield, park),
 * the MTU, the publication term length, the receiver window and the socket buffers. Publications are
 * {@link ExclusivePublication}s (one publishing thread).
 *
 * <p>Streams: bw messages carry {@code k + 1} in their first and last 8 bytes and are reassembled with a
 * {@link FragmentAssembler}; 2-byte messages carry {@code k} (mod 2^16); ping-pong uses stream 1002 to the server and
 * 1003 back, the payload being the round-trip number, 0xFFFF to stop.
 */
final class AeronBench {

    private static final int DATA_STREAM = 1001;
    private static final int PING_STREAM = 1002;
    private static final int PONG_STREAM = 1003;
    private static final int FRAGMENTS = 256;
    private static final short STOP = (short) 0xFFFF;

    private AeronBench() {
    }

    /** One process's driver and client. */
    static final class Node implements AutoCloseable {
        private final MediaDriver driver;
        private final Aeron aeron;
        private final AgentInvoker driverInvoker;
        private final AgentInvoker clientInvoker;
        private final IdleStrategy idle;
        private final Params p;

        Node(Params p) {
            this.p = p;
            ThreadingMode mode = ThreadingMode.valueOf(p.str("aeron_threading").toUpperCase(Locale.ROOT));
            boolean busy = p.str("aeron_idle").equals("busy");
            MediaDriver.Context dc = new MediaDriver.Context()
                    .aeronDirectoryName(p.str("aeron_dir"))
                    .dirDeleteOnStart(true)
                    .dirDeleteOnShutdown(true)
                    .warnIfDirectoryExists(false)
                    .printConfigurationOnStart(false)
                    .performStorageChecks(false)
                    .termBufferSparseFile(false)
                    .threadingMode(mode)
                    .mtuLength(p.integer("aeron_mtu"))
                    .publicationTermBufferLength(p.integer("aeron_term"))
                    .initialWindowLength(p.integer("aeron_window"))
                    .socketRcvbufLength(p.integer("aeron_sobuf"))
                    .socketSndbufLength(p.integer("aeron_sobuf"));
            if (busy) {
                dc.sharedIdleStrategy(new BusySpinIdleStrategy()).sharedNetworkIdleStrategy(new BusySpinIdleStrategy())
                        .senderIdleStrategy(new BusySpinIdleStrategy()).receiverIdleStrategy(new BusySpinIdleStrategy())
                        .conductorIdleStrategy(new BusySpinIdleStrategy());
            } else {
                dc.sharedIdleStrategy(new BackoffIdleStrategy()).sharedNetworkIdleStrategy(new BackoffIdleStrategy())
                        .senderIdleStrategy(new BackoffIdleStrategy()).receiverIdleStrategy(new BackoffIdleStrategy());
            }
            idle = busy ? new BusySpinIdleStrategy() : new BackoffIdleStrategy();
            driver = MediaDriver.launch(dc);
            try {
                Aeron.Context ac = new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName());
                if (mode == ThreadingMode.INVOKER) {
                    ac.useConductorAgentInvoker(true).driverAgentInvoker(driver.sharedAgentInvoker());
                }
                aeron = Aeron.connect(ac);
            } catch (RuntimeException e) {
                driver.close();
                throw e;
            }
            driverInvoker = mode == ThreadingMode.INVOKER ? driver.sharedAgentInvoker() : null;
            clientInvoker = mode == ThreadingMode.INVOKER ? aeron.conductorAgentInvoker() : null;
        }

        /** The channel of a stream to {@code address:port}. */
        String channel(String address, int port) {
            return "aeron:udp?endpoint=" + address + ":" + port;
        }

        /**
         * A publication to {@code address:port}. Aeron binds a unicast publication's socket to an ephemeral port
         * (its {@code interface} parameter selects a network interface by prefix, not a single loopback address),
         * so only the receiving endpoints are on the children's own addresses.
         */
        ExclusivePublication publication(String address, int port, int stream) {
            return aeron.addExclusivePublication(channel(address, port), stream);
        }

        Subscription subscription(int port, int stream) {
            return aeron.addSubscription(channel(p.str("self"), port), stream);
        }

        /** Runs the driver's duty cycle when this thread owns it (INVOKER), then idles by the strategy. */
        void idle(int work) {
            idle.idle(work + work());
        }

        /** Runs the driver's and the client conductor's duty cycles when this thread owns them; never sleeps. */
        int work() {
            if (driverInvoker == null) {
                return 0;
            }
            return driverInvoker.invoke() + clientInvoker.invoke();
        }

        void awaitConnected(Publication pub, Deadline deadline) throws Exception {
            while (!pub.isConnected()) {
                deadline.check("waiting for the Aeron publication to connect");
                idle(0);
            }
        }

        @Override
        public void close() {
            try {
                aeron.close();
            } finally {
                driver.close();
            }
        }
    }

    /** Fails on the offer results that never clear up. */
    private static void checkOffer(long r) {
        if (r == Publication.CLOSED || r == Publication.MAX_POSITION_EXCEEDED) {
            throw new IllegalStateException("Aeron offer failed: " + (r == Publication.CLOSED ? "closed"
                    : "max position exceeded"));
        }
    }

    // ------------------------------------------------------------------------------------------------- streams

    /**
     * Counts and checks messages of the bw (size >= 16) or msg-rate (size 2) stream. Aeron catches what a handler
     * throws (and goes on polling), so a bad message is recorded and reported by {@link #check} after the poll.
     */
    private static final class Receiver implements FragmentHandler {
        final int size;
        long count;
        String failure;

        Receiver(int size) {
            this.size = size;
        }

        @Override
        public void onFragment(DirectBuffer buffer, int offset, int length, Header header) {
            if (failure != null) {
                return;
            }
            if (length != size) {
                failure = "Aeron message " + count + " of " + length + " bytes, expected " + size;
                return;
            }
            if (size >= 16) {
                long want = count + 1;
                long first = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
                long last = buffer.getLong(offset + size - 8, ByteOrder.LITTLE_ENDIAN);
                if (first != want || last != want) {
                    failure = "Aeron message " + count + ": words " + first + " / " + last + ", expected " + want;
                    return;
                }
            } else {
                short v = buffer.getShort(offset, ByteOrder.LITTLE_ENDIAN);
                if (v != (short) count) {
                    failure = "Aeron message " + count + ": value " + v + ", expected " + (short) count;
                    return;
                }
            }
            count++;
        }

        void check() {
            if (failure != null) {
                throw new BenchFailure(failure);
            }
        }
    }

    /** The subscriber (server): polls, checks, measures; then drains until it has all the sender offered. */
    static String streamReceive(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        Window window = new Window(control, p.lng("warmup_ms") * 1_000_000L, p.lng("duration_ms") * 1_000_000L);
        try (Node node = new Node(p); Subscription sub = node.subscription(p.integer("aeron_port"), DATA_STREAM)) {
            Receiver r = new Receiver(size);
            FragmentHandler handler = size >= 16 ? new FragmentAssembler(r, size, true) : r;
            control.send("ready");
            long total = -1;
            while (true) {
                int n = sub.poll(handler, FRAGMENTS);
                r.check();
                if (!window.done()) {
                    window.tick(r.count);
                } else {
                    if (total < 0) {
                        Control.Msg d = control.poll("done");
                        if (d != null) {
                            total = Long.parseLong(d.args()[0]);
                        }
                    }
                    if (total >= 0 && r.count >= total) {
                        break;
                    }
                }
                if (deadline.passed()) {
                    throw deadline.timeout("receiving Aeron messages (" + r.count + " so far)");
                }
                node.idle(n);
            }
            if (r.count != total) {
                throw new BenchFailure("received " + r.count + " messages, the sender offered " + total);
            }
            control.send("fin");
            return window.fields(size);
        }
    }

    /** The publisher (client): offers until the subscriber says stop. */
    static String streamSend(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        long corrupt = p.lng("corrupt", -1);
        control.await("ready", deadline.nanos());
        try (Node node = new Node(p);
                ExclusivePublication pub = node.publication(p.str("peer"), p.integer("aeron_port"), DATA_STREAM)) {
            node.awaitConnected(pub, deadline);
            if (pub.maxMessageLength() < size) {
                throw new IllegalArgumentException("Aeron's max message length " + pub.maxMessageLength()
                        + " is below " + size + ": raise aeron_term");
            }
            UnsafeBuffer msg = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            int workEvery = size >= 16 ? 1 : 64;
            long k = 0;
            outer:
            while (true) {
                if (size >= 16) {
                    msg.putLong(0, k == corrupt ? ~(k + 1) : k + 1, ByteOrder.LITTLE_ENDIAN);
                    msg.putLong(size - 8, k + 1, ByteOrder.LITTLE_ENDIAN);
                } else {
                    msg.putShort(0, k == corrupt ? (short) (k + 7) : (short) k, ByteOrder.LITTLE_ENDIAN);
                }
                long r;
                while ((r = pub.offer(msg, 0, size)) < 0) {
                    checkOffer(r);
                    if (r == Publication.NOT_CONNECTED) {
                        throw new IllegalStateException("the Aeron subscriber went away after " + k + " messages");
                    }
                    if (control.stopped()) {
                        break outer;
                    }
                    deadline.check("offering Aeron messages");
                    node.idle(0);
                }
                k++;
                if (k % workEvery == 0) {
                    node.work();
                    if (control.stopped()) {
                        break;
                    }
                }
            }
            return NioBench.done(control, deadline, k, node::work);
        }
    }

    // ------------------------------------------------------------------------------------------------- ping-pong

    /** The ping-pong client: times each round trip. */
    static String ping(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        int port = p.integer("aeron_port");
        control.await("ready", deadline.nanos());
        try (Node node = new Node(p); Subscription pong = node.subscription(port + 1, PONG_STREAM);
                ExclusivePublication ping = node.publication(p.str("peer"), port, PING_STREAM)) {
            node.awaitConnected(ping, deadline);
            while (!pong.isConnected()) {
                deadline.check("waiting for the Aeron pong stream");
                node.idle(0);
            }
            UnsafeBuffer msg = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            Echo echo = new Echo();
            Latencies lat = new Latencies(p.integer("iters"));
            Measured m = new Measured(p, System.nanoTime());
            for (long i = 0; ; i++) {
                short v = (short) (i % 0xFFFF);
                msg.putShort(0, v, ByteOrder.LITTLE_ENDIAN);
                echo.got = false;
                long t0 = System.nanoTime();
                offer(node, ping, msg, size, deadline);
                while (pong.poll(echo, 1) == 0) {
                    deadline.check("waiting for an Aeron pong");
                    node.idle(0);
                }
                long t1 = System.nanoTime();
                if (!echo.got || echo.value != v) {
                    throw new BenchFailure("round trip " + i + ": echo " + echo.value + ", sent " + v);
                }
                if (m.measures(t0) && (!lat.add(t1 - t0) || m.over(t1))) {
                    break;
                }
            }
            msg.putShort(0, STOP, ByteOrder.LITTLE_ENDIAN);
            offer(node, ping, msg, size, deadline);
            control.send(Control.STOP);
            control.await("fin", deadline.nanos(), node::work);
            return lat.fields() + m.field();
        }
    }

    /** The ping-pong server: echoes each ping on the pong stream. */
    static String pong(Params p, Control control, Deadline deadline) throws Exception {
        int size = p.integer("size");
        int port = p.integer("aeron_port");
        long corrupt = p.lng("corrupt", -1);
        try (Node node = new Node(p); Subscription pings = node.subscription(port, PING_STREAM);
                ExclusivePublication pongs = node.publication(p.str("peer"), port + 1, PONG_STREAM)) {
            control.send("ready");
            UnsafeBuffer msg = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            Echo echo = new Echo();
            for (long i = 0; ; i++) {
                echo.got = false;
                while (pings.poll(echo, 1) == 0) {
                    if (control.stopped()) {
                        break;
                    }
                    deadline.check("waiting for an Aeron ping");
                    node.idle(0);
                }
                if (!echo.got || echo.value == STOP) {
                    break;
                }
                msg.putShort(0, i == corrupt ? (short) (echo.value + 1) : echo.value, ByteOrder.LITTLE_ENDIAN);
                offer(node, pongs, msg, size, deadline);
            }
            control.send("fin");
            return "echoed=1";
        }
    }

    private static void offer(Node node, Publication pub, UnsafeBuffer msg, int size, Deadline deadline)
            throws Exception {
        long r;
        while ((r = pub.offer(msg, 0, size)) < 0) {
            checkOffer(r);
            deadline.check("offering an Aeron message");
            node.idle(0);
        }
        node.work();
    }

    /** Keeps the last 2-byte value polled. */
    private static final class Echo implements FragmentHandler {
        boolean got;
        short value;

        @Override
        public void onFragment(DirectBuffer buffer, int offset, int length, Header header) {
            got = true;
            value = buffer.getShort(offset, ByteOrder.LITTLE_ENDIAN);
        }
    }
}

package io.jrdma.examples;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * hello_verbs, the classic first verbs program: a client RDMA-WRITEs "hello verbs" into a server's buffer.
 *
 * <pre>
 * HelloVerbs server [--addr 127.0.0.1] [--port 18515] [--timeout 10]
 * HelloVerbs client &lt;serverHost&gt; [--addr 127.0.0.2] [--port 18515] [--timeout 10]
 * </pre>
 *
 * Each side opens a soft RoCEv2 device on its own IPv4 address, registers a 4 KiB buffer (the server's with
 * REMOTE_WRITE), creates an RC QP and swaps {@link Endpoint}s over TCP: the client sends its endpoint, the server
 * connects its QP (RTR/RTS) and answers with its own, so the server is ready before the client writes. The client
 * writes, waits for the completion and sends "done"; the server then prints what it finds in its buffer. Every wait
 * is bounded by the timeout (seconds). Exit status: 0 on success, 1 on failure, 2 on bad arguments.
 *
 * <p>The devices' engine threading is the soft device's default unless {@code jrdma.threading} /
 * {@code JRDMA_THREADING} names one ({@link ThreadingSetting}). Every wait on the TCP side channel drives the
 * device, so that a side in invoker threading keeps answering its peer while it waits.
 */
public final class HelloVerbs {

    /** The default TCP port of the side channel (ibv_rc_pingpong's). */
    public static final int DEFAULT_PORT = 18515;
    /** The default soft device address of the server. */
    public static final String DEFAULT_SERVER_ADDR = "127.0.0.1";
    /** The default soft device address of the client. */
    public static final String DEFAULT_CLIENT_ADDR = "127.0.0.2";
    /** What the client writes. */
    public static final String MESSAGE = "hello verbs";

    private static final int BUFFER_BYTES = 4096;
    private static final Mtu PATH_MTU = Mtu.MTU_1024;
    private static final long WRITE_WR_ID = 1;
    private static final String DONE = "done";
    private static final String USAGE = """
            usage: hello-verbs server [--addr ADDR] [--port PORT] [--timeout SECONDS]
                   hello-verbs client SERVER_HOST [--addr ADDR] [--port PORT] [--timeout SECONDS]
              --addr     the IPv4 address of this side's soft RoCE device
                         (default 127.0.0.1 for the server, 127.0.0.2 for the client)
              --port     the TCP port of the endpoint exchange (default 18515)
              --timeout  the bound of every wait in seconds (default 10)""";

    private HelloVerbs() {
    }

    /** Runs hello_verbs and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs hello_verbs with {@code args}; returns the exit status (0 success, 1 failure, 2 bad arguments). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("hello-verbs: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        if (o == null) {
            out.println(USAGE);
            return 0;
        }
        String who = "hello-verbs " + (o.server ? "server" : "client");
        try {
            if (o.server) {
                return server(o, out, err);
            }
            return client(o, out);
        } catch (Exception e) {
            err.println(who + ": error: " + describe(e));
            return 1;
        }
    }

    private static int server(Options o, PrintStream out, PrintStream err) throws Exception {
        SoftDevice device = device(o.addr);
        try (RcPeer peer = RcPeer.open(device, BUFFER_BYTES, Access.LOCAL_WRITE | Access.REMOTE_WRITE,
                Access.REMOTE_WRITE)) {
            Endpoint local = peer.endpoint(randomPsn());
            out.println("server: device " + device.name() + " on " + o.addr + " (" + engine(device)
                    + "), waiting for a client on TCP port " + o.port);
            out.flush();
            try (EndpointExchange exchange = EndpointExchange.server(o.port, o.timeout)) {
                driveWhileWaiting(exchange, peer); // answers the client's WRITE while it waits for "done"
                Endpoint remote = exchange.receiveEndpoint();
                out.println("  local  " + local);
                out.println("  remote " + remote);
                peer.connect(local, remote, PATH_MTU);
                exchange.send(local);
                exchange.expect(DONE);
            }
            String text = cString(peer.buffer());
            if (text.isEmpty()) {
                err.println("hello-verbs server: error: the client said done but the buffer is empty");
                return 1;
            }
            out.println("received: " + text);
            return 0;
        }
    }

    private static int client(Options o, PrintStream out) throws Exception {
        SoftDevice device = device(o.addr);
        try (RcPeer peer = RcPeer.open(device, BUFFER_BYTES, Access.LOCAL_WRITE, 0)) {
            Endpoint local = peer.endpoint(randomPsn());
            out.println("client: device " + device.name() + " on " + o.addr + " (" + engine(device)
                    + "), connecting to " + o.serverHost + ":" + o.port);
            try (EndpointExchange exchange = EndpointExchange.client(o.serverHost, o.port, o.timeout)) {
                driveWhileWaiting(exchange, peer);
                exchange.send(local);
                Endpoint remote = exchange.receiveEndpoint();
                out.println("  local  " + local);
                out.println("  remote " + remote);
                peer.connect(local, remote, PATH_MTU);

                byte[] message = (MESSAGE + '\0').getBytes(StandardCharsets.US_ASCII);
                MemorySegment.copy(message, 0, peer.buffer(), ValueLayout.JAVA_BYTE, 0, message.length);
                peer.qp().postSend(new SendWr().wrId(WRITE_WR_ID).opcode(WrOpcode.RDMA_WRITE)
                        .sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(peer.mr().address(), message.length, peer.mr().lkey()))
                        .remote(remote.vaddr(), remote.rkey()));
                WorkCompletion wc = peer.awaitSuccess(new WorkCompletion(), o.timeout);
                out.println("wrote \"" + MESSAGE + "\" (" + message.length + " bytes) to 0x"
                        + Long.toHexString(remote.vaddr()) + ": " + wc.status() + " " + wc.opcode());
                exchange.send(DONE);
            }
            return 0;
        }
    }

    /** This side's device: threading as {@code jrdma.threading} / {@code JRDMA_THREADING} says, else the default. */
    private static SoftDevice device(String address) {
        return ThreadingSetting.apply(SoftDevice.builder().name("rxe0").address(address)).build();
    }

    /** Makes the exchange drive the device while it waits, when nothing else does (invoker threading). */
    private static void driveWhileWaiting(EndpointExchange exchange, RcPeer peer) throws IOException {
        if (peer.context().needsProgress()) {
            exchange.driveWhileWaiting(peer.context()::progress);
        }
    }

    /** "adaptive engine", "invoker engine" or "dedicated engine". */
    private static String engine(SoftDevice device) {
        return device.threading().name().toLowerCase(Locale.ROOT) + " engine";
    }

    /** The bytes of {@code buffer} before the first NUL, as ASCII. */
    private static String cString(MemorySegment buffer) {
        long n = 0;
        while (n < buffer.byteSize() && buffer.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(buffer.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    private static int randomPsn() {
        return ThreadLocalRandom.current().nextInt(1 << 24);
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /** The parsed command line. */
    private static final class Options {
        boolean server;
        String serverHost;
        String addr;
        int port = DEFAULT_PORT;
        Duration timeout = EndpointExchange.DEFAULT_TIMEOUT;

        /** The options, or null when help was asked for. */
        static Options parse(String[] args) {
            Options o = new Options();
            if (args.length == 0) {
                throw new IllegalArgumentException("missing role: server or client");
            }
            int i = 0;
            switch (args[i++]) {
                case "server" -> o.server = true;
                case "client" -> o.server = false;
                case "-h", "--help" -> {
                    return null;
                }
                default -> throw new IllegalArgumentException("unknown role '" + args[0] + "' (server or client)");
            }
            while (i < args.length) {
                String a = args[i++];
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    value = a.substring(eq + 1);
                    a = a.substring(0, eq);
                }
                switch (a) {
                    case "-h", "--help" -> {
                        return null;
                    }
                    case "--addr" -> o.addr = value != null ? value : next(args, i++, a);
                    case "--port" -> o.port = port(value != null ? value : next(args, i++, a));
                    case "--timeout" -> o.timeout = seconds(value != null ? value : next(args, i++, a));
                    default -> {
                        if (a.startsWith("-")) {
                            throw new IllegalArgumentException("unknown option '" + a + "'");
                        }
                        if (o.server || o.serverHost != null) {
                            throw new IllegalArgumentException("unexpected argument '" + a + "'");
                        }
                        o.serverHost = a;
                    }
                }
            }
            if (!o.server && o.serverHost == null) {
                throw new IllegalArgumentException("the client needs the server's host name or address");
            }
            if (o.addr == null) {
                o.addr = o.server ? DEFAULT_SERVER_ADDR : DEFAULT_CLIENT_ADDR;
            }
            return o;
        }

        private static String next(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException("option " + option + " needs a value");
            }
            return args[i];
        }

        private static int port(String s) {
            try {
                int p = Integer.parseInt(s);
                if (p >= 1 && p <= 65535) {
                    return p;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("bad TCP port '" + s + "'");
        }

        private static Duration seconds(String s) {
            try {
                double v = Double.parseDouble(s);
                if (v > 0 && v <= 3600) {
                    return Duration.ofMillis(Math.round(v * 1000));
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("bad timeout '" + s + "' (seconds, at most 3600)");
        }
    }
}

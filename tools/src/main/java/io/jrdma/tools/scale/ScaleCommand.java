package io.jrdma.tools.scale;

import io.jrdma.examples.ThreadingSetting;
import io.jrdma.soft.Threading;
import io.jrdma.tools.Jrdma;
import io.jrdma.verbs.Mtu;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma scale}: N connected RC QPs between two processes, every QP moving and verifying data, then the
 * memory one idle QP costs. Without a role it runs both sides, each in a JVM of its own ({@link Launcher});
 * {@code server} and {@code client HOST} run one side, as the perftest tools do.
 */
@Command(name = "scale", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"N connected RC QPs between two processes (default 1000): every QP RDMA-WRITEs and SENDs K "
                + "messages, the receiver checks every byte per QP, then each side reports what one idle QP costs "
                + "(heap, native memory, file descriptors) beyond its queue buffers (goal: 32 KiB).",
            "",
            "  jrdma scale [options]           both sides, each in a JVM of its own",
            "  jrdma scale server [options]    one side, listening on TCP -p",
            "  jrdma scale client HOST [options]",
            "",
            "Exit status: 0 every QP's data verified on both sides, 1 failure, 2 bad usage.", ""})
public final class ScaleCommand implements Callable<Integer> {

    static final int DEFAULT_PORT = 18515;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "ROLE", description = "server or client (none: both)")
    private String role;

    @Parameters(index = "1", arity = "0..1", paramLabel = "HOST", description = "client: the server's host")
    private String host;

    @Option(names = {"-q", "--qps"}, defaultValue = "1000", description = "RC QPs per side (default 1000)")
    private int qps;

    @Option(names = {"-n", "--messages"}, defaultValue = "4",
            description = "RDMA WRITEs and SENDs each QP sends, K of each (default 4)")
    private int messages;

    @Option(names = {"-s", "--size"}, defaultValue = "4096", description = "bytes per message (default 4096)")
    private int size;

    @Option(names = {"-t", "--tx-depth"}, defaultValue = "128", description = "max_send_wr (default 128)")
    private int txDepth;

    @Option(names = {"-r", "--rx-depth"}, defaultValue = "512", description = "max_recv_wr (default 512)")
    private int rxDepth;

    @Option(names = {"-I", "--inline"}, defaultValue = "0", description = "max_inline_data (default 0)")
    private int inline;

    @Option(names = {"-o", "--rd-atomic"}, defaultValue = "16",
            description = "max_rd_atomic and max_dest_rd_atomic (default 16)")
    private int rdAtomic;

    @Option(names = {"-m", "--mtu"}, defaultValue = "1024", description = "path MTU (default 1024)")
    private int mtu;

    @Option(names = "--inflight", defaultValue = "128",
            description = "most send requests outstanding per side (default 128; 0: all at once)")
    private int inflight;

    @Option(names = "--ack-timeout", defaultValue = "14",
            description = "local ACK timeout of every QP, 4.096 us x 2^value (default 14: 67 ms)")
    private int ackTimeout;

    @Option(names = "--threading",
            description = "engine threading: ADAPTIVE, INVOKER or DEDICATED (default: jrdma.threading / "
                    + "JRDMA_THREADING, else the library's default, ADAPTIVE)")
    private Threading threading;

    @Option(names = "--timeout", defaultValue = "60", description = "bound of every wait in seconds (default 60)")
    private int timeoutSeconds;

    @Option(names = {"-p", "--port"}, description = "TCP port of the exchange (server and client: default 18515)")
    private Integer port;

    @Option(names = "--addr", description = "this side's device address (default 127.0.0.1 server, 127.0.0.2 client)")
    private String addr;

    @Option(names = "--server-addr", defaultValue = "127.0.0.1",
            description = "both sides: the server's device address (default 127.0.0.1)")
    private String serverAddr;

    @Option(names = "--client-addr", defaultValue = "127.0.0.2",
            description = "both sides: the client's device address (default 127.0.0.2)")
    private String clientAddr;

    /** For tests: the side damages one word of what it WRITEs on this QP, which its peer must catch. */
    @Option(names = "--corrupt-qp", hidden = true, defaultValue = "-1")
    private int corruptQp;

    @Option(names = "--jvm", paramLabel = "OPTION",
            description = "both sides: an option for the two JVMs (repeatable), e.g. --jvm=-Xmx1g")
    private List<String> jvm = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Config cfg;
        Mtu pathMtu = Mtu.largestAtMost(mtu);
        try {
            if (threading == null) {
                threading = ThreadingSetting.orDefault();
            }
            if (pathMtu == null || pathMtu.bytes() != mtu) {
                throw new IllegalArgumentException("--mtu must be 256, 512, 1024, 2048 or 4096");
            }
            if (timeoutSeconds < 1) {
                throw new IllegalArgumentException("--timeout must be at least 1 second");
            }
            cfg = new Config(qps, messages, size, txDepth, rxDepth, inline, rdAtomic, pathMtu, inflight,
                    ackTimeout, threading, Duration.ofSeconds(timeoutSeconds));
            checkRole();
        } catch (IllegalArgumentException e) {
            err.println("scale: " + e.getMessage() + " (jrdma scale --help lists the options)");
            err.flush();
            return Jrdma.USAGE;
        }
        if (role == null) {
            List<String> client = sideArgs(clientAddr, null);
            if (corruptQp >= 0) {
                client.addAll(List.of("--corrupt-qp", Integer.toString(corruptQp)));
            }
            return new Launcher(out, err, cfg.timeout().toMillis()).run(
                    sideArgs(serverAddr, port != null ? port : 0), serverAddr, client, jvm);
        }
        String who = role.toLowerCase(Locale.ROOT);
        try {
            return who.equals("server") ? server(cfg, out) : client(cfg, out);
        } catch (Exception e) {
            out.flush();
            String m = e.getMessage();
            err.println(who + ": error: " + (m == null || m.isBlank() ? e.toString() : m));
            err.flush();
            return Jrdma.FAILURE;
        }
    }

    private void checkRole() {
        if (port != null && (port < 0 || port > 65535)) {
            throw new IllegalArgumentException("--port must be 0..65535");
        }
        if (role == null) {
            if (host != null) {
                throw new IllegalArgumentException("a HOST is given without a role");
            }
            if (serverAddr.equals(clientAddr)) {
                throw new IllegalArgumentException("--server-addr and --client-addr must differ (one device each)");
            }
            return;
        }
        switch (role.toLowerCase(Locale.ROOT)) {
            case "server" -> {
                if (host != null) {
                    throw new IllegalArgumentException("the server takes no HOST");
                }
            }
            case "client" -> {
                if (host == null) {
                    throw new IllegalArgumentException("the client needs the server's HOST");
                }
            }
            default -> throw new IllegalArgumentException("ROLE must be server or client, not '" + role + "'");
        }
    }

    private int server(Config cfg, PrintWriter out) throws Exception {
        long ms = cfg.timeout().toMillis();
        try (ServerSocket listener = Exchange.listen(port != null ? port : DEFAULT_PORT)) {
            out.println("server: waiting for the client on TCP port " + listener.getLocalPort());
            out.flush();
            try (Exchange ex = Exchange.accept(listener, ms);
                    Side side = new Side(Side.Role.SERVER, cfg, addr != null ? addr : "127.0.0.1",
                            out, corruptQp)) {
                return side.run(ex);
            }
        }
    }

    private int client(Config cfg, PrintWriter out) throws Exception {
        long ms = cfg.timeout().toMillis();
        int p = port != null ? port : DEFAULT_PORT;
        try (Exchange ex = Exchange.connect(host, p, ms);
                Side side = new Side(Side.Role.CLIENT, cfg, addr != null ? addr : "127.0.0.2", out,
                        corruptQp)) {
            return side.run(ex);
        }
    }

    /** The options a side of the one-command form gets: this run's, with its device address. */
    private List<String> sideArgs(String address, Integer tcpPort) {
        List<String> a = new ArrayList<>(List.of("--addr", address, "-q", Integer.toString(qps), "-n",
                Integer.toString(messages), "-s", Integer.toString(size), "-t", Integer.toString(txDepth), "-r",
                Integer.toString(rxDepth), "-I", Integer.toString(inline), "-o", Integer.toString(rdAtomic), "-m",
                Integer.toString(mtu), "--inflight", Integer.toString(inflight), "--ack-timeout",
                Integer.toString(ackTimeout), "--threading", threading.name(),
                "--timeout", Integer.toString(timeoutSeconds)));
        if (tcpPort != null) {
            a.addAll(List.of("-p", Integer.toString(tcpPort)));
        }
        return a;
    }
}

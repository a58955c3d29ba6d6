package io.jrdma.tools.perftest;

import io.jrdma.soft.SoftDevice;
import io.jrdma.tools.Getopt;
import io.jrdma.tools.Rehearsal;
import io.jrdma.tools.perftest.Tool.Verb;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.QpType;
import java.util.Locale;

/**
 * The command line of perftest 4.5's ib_{send,write,read,atomic}_{bw,lat}, parsed as its getopt_long does (values
 * attached {@code -s4096} or separate {@code -s 4096}, long options with {@code =} or a separate value, flags
 * clustered {@code -aF}, numbers in C's {@code strtol(..., 0)} syntax) and checked with perftest's own messages
 * where it has them. One positional argument, the server's host, makes this side the client.
 *
 * <p>Implemented: {@code -p -d -i -x -s -n -a -D -m -q -c -t -F -e -l -A -I -o -u -S -r -Q -N -h -V} and
 * {@code --report_gbits}, with the tool-specific limits perftest has ({@code -q}, {@code -t}, {@code -l},
 * {@code -Q}, {@code -N} only in bandwidth tests; {@code -e} not with RDMA WRITE; {@code -A} only, and {@code -s}
 * never, in atomic tests). Connection types RC, UC (SEND and RDMA WRITE tests) and UD (SEND tests), refused as
 * perftest refuses them ({@link Exit}). Refused with an error: XRC, DC and SRD, {@code -D} except in the RDMA
 * WRITE/READ/atomic bandwidth tests, and every perftest option not listed here. jrdma adds {@code --timeout=SECONDS}
 * (a bound on every wait; default none) and {@code --check} (see {@link Perftest}).
 */
final class Options implements Cloneable {

    /** perftest's atomic operations, in the order of its atomicType values. */
    enum AtomicType {
        CMP_AND_SWAP, FETCH_AND_ADD
    }

    /**
     * A refusal that perftest reports with its message alone and {@code exit(1)}, without the parser's closing line
     * (its change_conn_type exits on the spot).
     */
    static final class Exit extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Exit(String message) {
            super(message);
        }
    }

    static final int DEFAULT_PORT = 18515;
    static final long MIN_ITERS = 5;
    static final long MAX_ITERS = 100_000_000;
    static final int MAX_TX_DEPTH = 15000;
    /** -a runs the sizes 2^1 .. 2^23. */
    static final int ALL_SIZES_LOG_MAX = 23;

    final Tool tool;
    int port = DEFAULT_PORT;
    String ibDev;
    int ibPort = 1;
    /** -x; -1 = not given (the best GID is chosen, as perftest does on Ethernet). */
    int gidIndex = -1;
    long size;
    boolean sizeGiven;
    long iters;
    boolean all;
    /** -D in seconds; 0 = run for the iteration count. */
    int duration;
    /** -m in bytes; 0 = the port's active MTU. */
    int mtu;
    int numQps = 1;
    /** -c: RC (default), UC or UD. */
    QpType connection = QpType.RC;
    int txDepth = 128;
    boolean txDepthGiven;
    boolean events;
    int postList = 1;
    boolean reportGbits;
    AtomicType atomicType = AtomicType.FETCH_AND_ADD;
    int inlineSize;
    /** -o; 0 = the device's maximum. */
    int outReads;
    int qpTimeout = 14;
    /** -R: connect the test QPs with rdma_cm, and exchange over an rdma_cm connection too (perftest's -z). */
    boolean rdmaCm;
    int sl;
    int rxDepth = 512;
    int cqMod = 100;
    boolean noPeak;
    String serverName;
    long timeoutMs;
    boolean check;
    boolean help;
    boolean version;
    /** One side of a {@link Rehearsal}: its peer is a thread of this process. */
    boolean rehearsing;
    /** A bandwidth client's empty polls after each completion before it posts again (a rehearsal's, natively). */
    int holdPolls;

    private boolean atomicTypeGiven;
    private boolean outReadsGiven;
    private boolean inlineGiven;

    private Options(Tool tool) {
        this.tool = tool;
        this.size = tool.defaultSize();
        this.iters = tool.defaultIters();
    }

    /**
     * These options for one side of a {@link Rehearsal} on {@code ctx}: the client of {@code server} (null: the
     * server) on exchange port {@code port}, {@code iters} iterations (rounded up to a multiple of {@code -l}) of
     * {@code size} bytes, no duration, no {@code --check}, every wait bounded by {@link Rehearsal#BOUND_MS}; on a
     * native device, a bandwidth client holds its posts after each completion
     * ({@link Bandwidth#REHEARSAL_HOLD_POLLS}).
     */
    Options rehearsal(String server, int port, long iters, long size, Context ctx) {
        long n = (iters + postList - 1) / postList * postList; // a multiple of the post list, as the run needs
        Options r;
        try {
            r = (Options) clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
        r.serverName = server;
        r.port = port;
        r.iters = n;
        r.size = size;
        r.all = false;
        r.duration = 0;
        r.check = false;
        r.timeoutMs = Rehearsal.BOUND_MS;
        r.noPeak = skipsPeak(); // as the run will
        r.rehearsing = true;
        r.holdPolls = ctx.device() instanceof SoftDevice ? 0 : Bandwidth.REHEARSAL_HOLD_POLLS;
        return r;
    }

    /**
     * Whether a bandwidth run of these options skips the peak: perftest calculates it only up to
     * {@link Bandwidth#PEAK_MAX_ITERS} messages, and not with a duration.
     */
    boolean skipsPeak() {
        return noPeak || duration > 0 || iters * numQps > Bandwidth.PEAK_MAX_ITERS;
    }

    /**
     * perftest's check of the message size against the path MTU of a UD test ({@code check_mtu}): a size the user
     * gave above it is an error; the default size, and the largest size of {@code -a}, become the MTU. Returns the
     * warning perftest prints then (empty when nothing changed).
     *
     * @throws IllegalArgumentException for a requested size above the MTU
     */
    String limitUdSize(int mtuBytes) {
        if (connection != QpType.UD || size <= mtuBytes) {
            return "";
        }
        if (sizeGiven && !all) {
            throw new IllegalArgumentException(" Max message size in UD cannot be greater than MTU ");
        }
        size = mtuBytes;
        return " Max msg size in UD is MTU " + mtuBytes + "\n Changing to this MTU";
    }

    /** True on the side that connects (a host was given), as perftest's {@code machine == CLIENT}. */
    boolean client() {
        return serverName != null;
    }

    /**
     * Parses and checks {@code args}.
     *
     * @throws IllegalArgumentException on an unknown option, a missing or bad value, a value out of perftest's range
     *                                  or an option this tool does not have or jrdma does not implement
     */
    static Options parse(Tool tool, String[] args) {
        Options o = new Options(tool);
        Getopt.scan(args, Getopt.handler(Options::longToShort, Options::takesValue, o::set, o::flag,
                arg -> o.serverName = arg));
        if (!o.help && !o.version) {
            o.validate();
        }
        return o;
    }

    private static String longToShort(String name) {
        return switch (name) {
            case "port" -> "p";
            case "ib-dev" -> "d";
            case "ib-port" -> "i";
            case "gid-index" -> "x";
            case "size" -> "s";
            case "iters" -> "n";
            case "all" -> "a";
            case "duration" -> "D";
            case "mtu" -> "m";
            case "qp" -> "q";
            case "connection" -> "c";
            case "tx-depth" -> "t";
            case "CPU-freq" -> "F";
            case "events" -> "e";
            case "post_list" -> "l";
            case "atomic_type" -> "A";
            case "inline_size" -> "I";
            case "outs" -> "o";
            case "qp-timeout" -> "u";
            case "sl" -> "S";
            case "rx-depth" -> "r";
            case "cq-mod" -> "Q";
            case "noPeak" -> "N";
            case "help" -> "h";
            case "version" -> "V";
            case "report_gbits" -> "report_gbits";
            case "timeout" -> "timeout";
            case "check" -> "check";
            case "rdma_cm" -> "R";
            default -> throw new IllegalArgumentException("unrecognized option '--" + name + "'"
                    + " (jrdma implements -p -d -i -x -s -n -a -D -m -q -c -t -F -e -l -A -I -o -u -S -r -Q -N -R -h"
                    + " -V, --rdma_cm, --report_gbits, --timeout=SECONDS and --check)");
        };
    }

    private static boolean takesValue(String opt) {
        return switch (opt) {
            case "p", "d", "i", "x", "s", "n", "D", "m", "q", "c", "t", "l", "A", "I", "o", "u", "S", "r", "Q",
                 "timeout" -> true;
            default -> false;
        };
    }

    private void set(String opt, String value) {
        switch (opt) {
            case "p" -> port = (int) range(value, "-p", 0, 65535);
            case "d" -> ibDev = value;
            case "i" -> ibPort = (int) range(value, "-i", 1, 255);
            case "x" -> gidIndex = (int) range(value, "-x", 0, 255);
            case "s" -> {
                size = range(value, "-s", 1, Integer.MAX_VALUE);
                sizeGiven = true;
            }
            case "n" -> iters = Getopt.number(value, "-n");
            case "D" -> duration = (int) range(value, "-D", 1, 86400);
            case "m" -> {
                mtu = (int) Getopt.number(value, "-m");
                if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
                    throw new IllegalArgumentException(" Invalid MTU - " + mtu + ". Please choose mtu from "
                            + "{256,512,1024,2048,4096}");
                }
            }
            case "q" -> numQps = (int) range(value, "-q", 1, 4096);
            case "c" -> connection = connection(tool.verb, value);
            case "t" -> {
                txDepth = (int) Getopt.number(value, "-t");
                txDepthGiven = true;
            }
            case "l" -> postList = (int) range(value, "-l", 1, 15000);
            case "A" -> {
                atomicType = switch (value) {
                    case "CMP_AND_SWAP" -> AtomicType.CMP_AND_SWAP;
                    case "FETCH_AND_ADD" -> AtomicType.FETCH_AND_ADD;
                    default -> throw new IllegalArgumentException(
                            " Invalid Atomic type! please choose from {CMP_AND_SWAP,FETCH_AND_ADD}");
                };
                atomicTypeGiven = true;
            }
            case "I" -> {
                inlineSize = (int) range(value, "-I", 0, 912);
                inlineGiven = true;
            }
            case "o" -> {
                outReads = (int) range(value, "-o", 1, 65536);
                outReadsGiven = true;
            }
            case "u" -> qpTimeout = (int) range(value, "-u", 0, 31);
            case "S" -> sl = (int) range(value, "-S", 0, 15);
            case "r" -> rxDepth = (int) range(value, "-r", 1, 15000);
            case "Q" -> cqMod = (int) range(value, "-Q", 1, 1024);
            case "timeout" -> timeoutMs = Getopt.timeoutMillis(value);
            default -> throw new IllegalStateException("option -" + opt);
        }
    }

    private void flag(String opt) {
        switch (opt) {
            case "a" -> all = true;
            case "F" -> {
                // no CPU frequency warning to silence: jrdma times with System.nanoTime
            }
            case "e" -> events = true;
            case "N" -> noPeak = true;
            case "h" -> help = true;
            case "V" -> version = true;
            case "report_gbits" -> reportGbits = true;
            case "check" -> check = true;
            case "R" -> rdmaCm = true;
            default -> throw new IllegalArgumentException("invalid option -- '" + opt + "'");
        }
    }

    /** change_conn_type: UC carries SEND and RDMA WRITE, UD only SEND; perftest exits with its message otherwise. */
    private static QpType connection(Verb verb, String value) {
        return switch (value) {
            case "RC" -> QpType.RC;
            case "UC" -> {
                if (verb == Verb.READ || verb == Verb.ATOMIC) {
                    throw new Exit(" UC connection not possible in READ/ATOMIC verbs");
                }
                yield QpType.UC;
            }
            case "UD" -> {
                if (verb != Verb.SEND) {
                    throw new Exit(" UD connection only possible in SEND verb");
                }
                yield QpType.UD;
            }
            case "XRC", "DC", "SRD" -> throw new IllegalArgumentException("connection type " + value
                    + " is not implemented by jrdma's perftest tools (RC, UC and UD are)");
            default -> throw new IllegalArgumentException(
                    " Invalid Connection type. Please choose from {RC,UC,UD,XRC,DC,SRD}");
        };
    }

    /** perftest's checks (force_dependencies and the per-test limits), with its messages. */
    private void validate() {
        Verb verb = tool.verb;
        if (iters < MIN_ITERS || iters > MAX_ITERS) {
            throw new IllegalArgumentException(" Iteration num should be between " + MIN_ITERS + " and "
                    + MAX_ITERS);
        }
        if (!tool.bw) {
            if (numQps > 1) {
                throw new IllegalArgumentException(" Multiple QPs only available on bw tests");
            }
            if (postList > 1) {
                throw new IllegalArgumentException("Post list is supported in BW tests only");
            }
            if (txDepthGiven) {
                throw new IllegalArgumentException("-t (tx depth) applies to bw tests only; latency tests keep one"
                        + " request in flight");
            }
        }
        if (txDepth < 1 || txDepth > MAX_TX_DEPTH) {
            throw new IllegalArgumentException(" Tx depth should be between 1 and " + MAX_TX_DEPTH);
        }
        if (events && verb == Verb.WRITE) {
            throw new IllegalArgumentException(" Events feature not available on WRITE verb");
        }
        if (atomicTypeGiven && verb != Verb.ATOMIC) {
            throw new IllegalArgumentException(" You are not running the atomic_lat/bw test!\n"
                    + " To change the atomic action type, you must run one of the atomic tests");
        }
        if (verb == Verb.ATOMIC) {
            if (sizeGiven && size != Tool.ATOMIC_SIZE) {
                throw new IllegalArgumentException("Message size cannot be changed for Atomic tests");
            }
            if (all) {
                throw new IllegalArgumentException("-a (all sizes) is not available in atomic tests");
            }
        }
        if (rdmaCm && connection == QpType.UC) {
            throw new Exit(Report.RESULT_LINE + "\n UC is not supported in librdmacm");
        }
        if (outReadsGiven && !tool.usesOutReads()) {
            throw new IllegalArgumentException(" Setting Outstanding reads only available on READ verb");
        }
        if (inlineGiven && tool.usesOutReads()) {
            throw new IllegalArgumentException(" Inline feature not available on READ/Atomic verbs");
        }
        if (duration > 0) {
            if (!tool.bw || verb == Verb.SEND) {
                throw new IllegalArgumentException("-D (duration) is implemented for ib_write_bw, ib_read_bw and "
                        + "ib_atomic_bw only");
            }
            if (all) {
                throw new IllegalArgumentException("-D cannot be combined with -a");
            }
        }
        if (postList > 1) {
            if (iters % postList != 0) {
                throw new IllegalArgumentException("Number of iterations must be a multiple of post list size");
            }
            cqMod = postList; // perftest: "Post list requested - CQ moderation will be the size of the post list"
        }
        if (all) {
            size = 1L << ALL_SIZES_LOG_MAX;
        }
    }

    private static long range(String s, String option, long min, long max) {
        long v = Getopt.number(s, option);
        if (v < min || v > max) {
            throw new IllegalArgumentException(option + " should be between " + min + " and " + max);
        }
        return v;
    }

    /** The usage text, after perftest's, listing what jrdma implements. */
    String usage() {
        String t = "jrdma " + tool.command;
        boolean atomic = tool.verb == Verb.ATOMIC;
        StringBuilder sb = new StringBuilder();
        sb.append("Usage:\n");
        sb.append("  ").append(t).append("            start a server and wait for connection\n");
        sb.append("  ").append(t).append(" <host>     connect to server at <host>\n\n");
        sb.append("Options:\n");
        if (atomic) {
            sb.append("  -A, --atomic_type=<type>  type of atomic operation from {CMP_AND_SWAP,FETCH_AND_ADD}"
                    + " (default FETCH_AND_ADD)\n");
        } else {
            sb.append("  -a, --all  Run sizes from 2 till 2^23\n");
        }
        sb.append(switch (tool.verb) {
            case SEND -> "  -c, --connection=<RC/UC/UD>  Connection type RC/UC/UD (default RC)\n";
            case WRITE -> "  -c, --connection=<RC/UC>  Connection type RC/UC (default RC)\n";
            case READ, ATOMIC -> "  -c, --connection=<RC>  Connection type RC (default RC)\n";
        });
        sb.append("  -d, --ib-dev=<dev>  Use IB device <dev> (default first device found)\n");
        if (tool.bw && tool.verb != Verb.SEND) {
            sb.append("  -D, --duration=<secs>  Run test for a customized period of seconds.\n");
        }
        if (tool.verb != Verb.WRITE) {
            sb.append("  -e, --events  Sleep on CQ events (default poll)\n");
        }
        sb.append("  -F, --CPU-freq  Do not show a warning even if cpufreq_ondemand module is loaded (no effect)\n");
        sb.append("  -h, --help  Show this help screen.\n");
        sb.append("  -i, --ib-port=<port>  Use port <port> of IB device (default 1)\n");
        if (!tool.usesOutReads()) {
            sb.append("  -I, --inline_size=<size>  Max size of message to be sent in inline\n");
        }
        if (tool.bw) {
            sb.append("  -l, --post_list=<list size>  Post list of send WQEs of <list size> size\n");
        }
        sb.append("  -m, --mtu=<mtu>  MTU size : 256 - 4096 (default port mtu)\n");
        sb.append("  -n, --iters=<iters>  Number of exchanges (at least 5, default ").append(tool.defaultIters())
                .append(")\n");
        if (tool.bw) {
            sb.append("  -N, --noPeak Cancel peak-bw calculation (default with peak up to iters=20000)\n");
        }
        if (tool.usesOutReads()) {
            sb.append("  -o, --outs=<num>  num of outstanding read/atom(default max of device)\n");
        }
        sb.append("  -p, --port=<port>  Listen on/connect to port <port> (default 18515)\n");
        if (tool.bw) {
            sb.append("  -q, --qp=<num of qp's>  Num of qp's(default 1)\n");
            sb.append("  -Q, --cq-mod  Generate Cqe only after <--cq-mod> completion\n");
        }
        if (tool.verb == Verb.SEND) {
            sb.append("  -r, --rx-depth=<dep>  Rx queue size (default 512)\n");
        }
        if (!atomic) {
            sb.append("  -s, --size=<size>  Size of message to exchange (default ").append(tool.defaultSize())
                    .append(")\n");
        }
        sb.append("  -S, --sl=<sl>  SL (default 0)\n");
        if (tool.bw) {
            sb.append("  -t, --tx-depth=<dep>  Size of tx queue (default 128)\n");
        }
        sb.append("  -u, --qp-timeout=<timeout>  QP timeout, timeout value is 4 usec * 2 ^(timeout), default 14\n");
        sb.append("  -V, --version  Display version number\n");
        sb.append("  -x, --gid-index=<index>  Test uses GID with GID index (default: the IPv4 RoCE v2 GID)\n");
        if (tool.bw) {
            sb.append("      --report_gbits  Report Max/Average BW of test in Gbit/sec (instead of MiB/sec)\n");
        }
        sb.append("      --timeout=<secs>  jrdma: bound every wait (default: wait forever)\n");
        sb.append("      --check  jrdma: fill buffers with a known pattern and verify what arrives (both sides"
                + " must be jrdma)\n");
        sb.append("\nThe soft device of -d is configured with JRDMA_DEVICES=name=ipv4 (e.g. rxe0=10.77.0.1).");
        return sb.toString();
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s size=%d iters=%d qps=%d all=%b server=%s", tool.command, size, iters,
                numQps, all, serverName);
    }
}

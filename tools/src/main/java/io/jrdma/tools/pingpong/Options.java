package io.jrdma.tools.pingpong;

import io.jrdma.tools.Getopt;
import io.jrdma.tools.Rehearsal;

/**
 * The command line of ibv_rc_pingpong / ibv_ud_pingpong, parsed as their getopt_long does: short options with the
 * value attached ({@code -s4096}) or separate ({@code -s 4096}), long options with {@code =} or a separate value,
 * numbers in C's {@code strtoul(..., 0)} syntax (decimal, {@code 0x} hex, leading-0 octal), and at most one
 * positional argument, the server's host name (none: this side is the server).
 *
 * <p>Flags: {@code -p/--port} TCP port (18515), {@code -d/--ib-dev} device (first found), {@code -i/--ib-port} port
 * (1), {@code -s/--size} message size (4096 rc, 2048 ud), {@code -m/--mtu} path MTU (1024, rc only),
 * {@code -r/--rx-depth} receives posted at a time (500), {@code -n/--iters} exchanges (1000), {@code -l/--sl} service
 * level, {@code -e/--events} sleep on CQ events, {@code -g/--gid-idx} local GID index (none: no GRH, which RoCE cannot do), {@code -c/--chk}
 * validate the received buffer (rc), {@code -o/--odp} on-demand paging (rc; the soft device has none). jrdma adds
 * {@code --timeout=SECONDS}: a bound on every wait (default: none, as the real tools).
 */
final class Options implements Cloneable {

    /** The transport the tool runs. */
    enum Kind {
        RC("rc_pingpong", 4096), UD("ud_pingpong", 2048);

        final String tool;
        final int defaultSize;

        Kind(String tool, int defaultSize) {
            this.tool = tool;
            this.defaultSize = defaultSize;
        }
    }

    final Kind kind;
    int port = 18515;
    String ibDev;
    int ibPort = 1;
    long size;
    int mtu = 1024;
    int rxDepth = 500;
    long iters = 1000;
    int sl;
    boolean events;
    int gidIdx = -1;
    boolean check;
    boolean odp;
    String serverName;
    /** The bound of every wait in milliseconds; 0 = wait forever (the real tools' behaviour). */
    long timeoutMs;
    boolean help;
    /** One side of a {@link Rehearsal}: its peer is a thread of this process. */
    boolean rehearsing;

    private Options(Kind kind) {
        this.kind = kind;
        this.size = kind.defaultSize;
    }

    /**
     * These options for one side of a {@link Rehearsal}: the client of {@code server} (null: the server) on port
     * {@code port}, {@code iters} exchanges, every wait bounded by {@link Rehearsal#BOUND_MS}.
     */
    Options rehearsal(String server, int port, long iters) {
        Options r;
        try {
            r = (Options) clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
        r.serverName = server;
        r.port = port;
        r.iters = iters;
        r.timeoutMs = Rehearsal.BOUND_MS;
        r.rehearsing = true;
        return r;
    }

    /**
     * Parses {@code args}.
     *
     * @throws IllegalArgumentException on an unknown option, a missing or bad value, or extra arguments
     */
    static Options parse(Kind kind, String[] args) {
        Options o = new Options(kind);
        Getopt.scan(args, Getopt.handler(name -> longToShort(kind, name), opt -> takesValue(kind, opt), o::set,
                o::flag, arg -> o.serverName = arg));
        return o;
    }

    private static String longToShort(Kind kind, String name) {
        return switch (name) {
            case "port" -> "p";
            case "ib-dev" -> "d";
            case "ib-port" -> "i";
            case "size" -> "s";
            case "mtu" -> kind == Kind.RC ? "m" : "?mtu";
            case "rx-depth" -> "r";
            case "iters" -> "n";
            case "sl" -> "l";
            case "events" -> "e";
            case "gid-idx" -> "g";
            case "chk" -> kind == Kind.RC ? "c" : "?chk";
            case "odp" -> kind == Kind.RC ? "o" : "?odp";
            case "timeout" -> "T";
            case "help" -> "h";
            default -> "?" + name;
        };
    }

    private static boolean takesValue(Kind kind, String name) {
        return switch (name) {
            case "p", "d", "i", "s", "r", "n", "l", "g", "T" -> true;
            case "m" -> kind == Kind.RC;
            default -> false;
        };
    }

    private void set(String name, String value) {
        switch (name) {
            case "p" -> {
                port = (int) Getopt.number(value, "-p");
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException("bad TCP port '" + value + "'");
                }
            }
            case "d" -> ibDev = value;
            case "i" -> {
                ibPort = (int) Getopt.number(value, "-i");
                if (ibPort < 1) {
                    throw new IllegalArgumentException("bad IB port '" + value + "'");
                }
            }
            case "s" -> {
                size = Getopt.number(value, "-s");
                if (size < 1 || size > Integer.MAX_VALUE - 64) {
                    throw new IllegalArgumentException("bad size '" + value + "'");
                }
            }
            case "m" -> {
                mtu = (int) Getopt.number(value, "-m");
                if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
                    throw new IllegalArgumentException("bad MTU '" + value + "' (256, 512, 1024, 2048 or 4096)");
                }
            }
            case "r" -> {
                rxDepth = (int) Getopt.number(value, "-r");
                if (rxDepth < 1) {
                    throw new IllegalArgumentException("bad rx depth '" + value + "'");
                }
            }
            case "n" -> iters = Getopt.number(value, "-n");
            case "l" -> sl = (int) Getopt.number(value, "-l");
            case "g" -> gidIdx = (int) Getopt.number(value, "-g");
            case "T" -> timeoutMs = Getopt.timeoutMillis(value);
            default -> throw new IllegalArgumentException("unknown option " + name);
        }
    }

    private void flag(String name) {
        switch (name) {
            case "e" -> events = true;
            case "c" -> {
                if (kind != Kind.RC) {
                    throw unknown(name);
                }
                check = true;
            }
            case "o" -> {
                if (kind != Kind.RC) {
                    throw unknown(name);
                }
                odp = true;
            }
            case "h" -> help = true;
            default -> throw unknown(name);
        }
    }

    private static IllegalArgumentException unknown(String name) {
        String shown = name.startsWith("?") ? "--" + name.substring(1) : "-" + name;
        return new IllegalArgumentException("unrecognized option '" + shown + "'");
    }

    /** The usage text of the tool, after the real one's. */
    String usage() {
        String t = "jrdma " + kind.tool;
        StringBuilder sb = new StringBuilder();
        sb.append("Usage:\n");
        sb.append("  ").append(t).append("            start a server and wait for connection\n");
        sb.append("  ").append(t).append(" <host>     connect to server at <host>\n\n");
        sb.append("Options:\n");
        sb.append("  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n");
        sb.append("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
        sb.append("  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n");
        sb.append("  -s, --size=<size>      size of message to exchange (default ").append(kind.defaultSize)
                .append(")\n");
        if (kind == Kind.RC) {
            sb.append("  -m, --mtu=<size>       path MTU (default 1024)\n");
        }
        sb.append("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
        sb.append("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
        sb.append("  -l, --sl=<sl>          service level value\n");
        sb.append("  -e, --events           sleep on CQ events (default poll)\n");
        sb.append("  -g, --gid-idx=<gid index> local port gid index\n");
        if (kind == Kind.RC) {
            sb.append("  -c, --chk              validate received buffer\n");
            sb.append("  -o, --odp              use on demand paging\n");
        }
        sb.append("      --timeout=<secs>   jrdma: bound every wait (default: wait forever)\n");
        sb.append("\nThe soft device of -d is configured with JRDMA_DEVICES=name=ipv4 (e.g. rxe0=10.77.0.1);\n");
        sb.append("talking to a RoCE peer needs -g 1 (GID 1 is the device's IPv4-mapped address).");
        return sb.toString();
    }
}

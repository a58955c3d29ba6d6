package io.jrdma.tools.rping;

import io.jrdma.tools.Getopt;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * rping's command line, parsed as its getopt does ({@code "a:I:Pp:C:S:t:scvVdq"}): {@code -s} server or {@code -c}
 * client (one is required), {@code -a} address (the server's to connect to, or the one to bind; default any),
 * {@code -I} the client's source address, {@code -p} port (7174), {@code -C} ping count (0: forever), {@code -S}
 * ping size (64; 26 to 65535), {@code -v} print the ping data, {@code -V} validate it, {@code -d} debug output.
 * jrdma adds {@code --timeout=SECONDS}: a bound on every wait (default: none, as rping).
 * {@code -P} (persistent server), {@code -q} (self-created QP) and {@code -t} (type of service) are refused.
 */
final class RpingOptions {

    /** rping's default port. */
    static final int DEFAULT_PORT = 7174;
    /** RPING_BUFSIZE: sizes must stay below it. */
    static final int BUFSIZE = 64 * 1024;
    /** RPING_MIN_BUFSIZE: sizeof("2147483647") + sizeof("rdma-ping-%d: "). */
    static final int MIN_SIZE = 11 + 15;

    int server = -1;
    InetAddress address;
    InetAddress source;
    int port = DEFAULT_PORT;
    int count;
    int size = 64;
    boolean verbose;
    boolean validate;
    boolean debug;
    long timeoutMs;
    boolean help;

    private RpingOptions() {
    }

    /**
     * Parses {@code args}.
     *
     * @throws IllegalArgumentException with rping's message for a bad value, an unknown option or neither -s nor -c
     */
    static RpingOptions parse(String[] args) {
        RpingOptions o = new RpingOptions();
        Getopt.scan(args, Getopt.handler(RpingOptions::longToShort, RpingOptions::takesValue, o::set, o::flag,
                arg -> {
                    throw new IllegalArgumentException("unexpected argument '" + arg + "'");
                }));
        if (o.server == -1 && !o.help) {
            throw new IllegalArgumentException("one of -s (server) or -c (client) is required");
        }
        return o;
    }

    private static String longToShort(String name) {
        return switch (name) {
            case "timeout" -> "timeout";
            case "help" -> "h";
            default -> throw new IllegalArgumentException("unrecognized option '--" + name + "'");
        };
    }

    private static boolean takesValue(String opt) {
        return switch (opt) {
            case "a", "I", "p", "C", "S", "t", "timeout" -> true;
            default -> false;
        };
    }

    private void set(String opt, String v) {
        switch (opt) {
            case "a" -> address = resolve(v);
            case "I" -> source = resolve(v);
            case "p" -> port = (int) range(Getopt.number(v, "-p"), 0, 0xFFFF, "port");
            case "C" -> {
                long c = Getopt.number(v, "-C");
                if (c < 0 || c > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("Invalid count " + v);
                }
                count = (int) c;
            }
            case "S" -> {
                long s = Getopt.number(v, "-S");
                if (s < MIN_SIZE || s > BUFSIZE - 1) {
                    throw new IllegalArgumentException("Invalid size " + v + " (valid range is " + MIN_SIZE + " to "
                            + BUFSIZE + ")");
                }
                size = (int) s;
            }
            case "t" -> throw new IllegalArgumentException("-t (type of service) is not implemented by jrdma's rping");
            case "timeout" -> timeoutMs = Getopt.timeoutMillis(v);
            default -> throw new IllegalArgumentException("invalid option -- '" + opt + "'");
        }
    }

    private void flag(String opt) {
        switch (opt) {
            case "s" -> server = 1;
            case "c" -> server = 0;
            case "v" -> verbose = true;
            case "V" -> validate = true;
            case "d" -> debug = true;
            case "h" -> help = true;
            case "P" -> throw new IllegalArgumentException(
                    "-P (persistent server) is not implemented by jrdma's rping");
            case "q" -> throw new IllegalArgumentException("-q (self-created QP) is not implemented by jrdma's rping");
            default -> throw new IllegalArgumentException("invalid option -- '" + opt + "'");
        }
    }

    private static long range(long v, long lo, long hi, String what) {
        if (v < lo || v > hi) {
            throw new IllegalArgumentException("invalid " + what + " " + v);
        }
        return v;
    }

    private static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("getaddrinfo failed (" + e.getMessage()
                    + ") - invalid hostname or IP address");
        }
    }

    /** rping's usage text. */
    static String usage() {
        return """
                rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]
                rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]
                \t-c\t\tclient side
                \t-I\t\tSource address to bind to for client.
                \t-s\t\tserver side.
                \t-v\t\tdisplay ping data to stdout
                \t-V\t\tvalidate ping data
                \t-d\t\tdebug printfs
                \t-S size \tping data size
                \t-C count\tping count times
                \t-a addr\t\taddress
                \t-p port\t\tport
                \t--timeout=SECONDS\tjrdma: bound every wait (default: wait forever, as rping)""";
    }
}

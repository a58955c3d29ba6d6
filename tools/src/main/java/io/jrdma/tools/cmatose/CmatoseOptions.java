package io.jrdma.tools.cmatose;

import io.jrdma.cm.PortSpace;
import io.jrdma.tools.Getopt;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The command line of librdmacm's ucmatose ({@code "s:b:f:P:c:C:S:t:p:m"}) and udaddy ({@code "s:b:c:C:S:t:p:P:f:"}):
 * {@code -s} the server's address (this side is then the client), {@code -b} the address to bind, {@code -c}
 * connections (1), {@code -C} messages per connection (10), {@code -S} message size (100), {@code -P} port space
 * (ucmatose: tcp or ib; udaddy: udp), ucmatose's {@code -p} port (7471; udaddy uses 7174 and its {@code -p} is a
 * port space number), {@code -f} address format (name or ip). jrdma adds {@code --timeout=SECONDS} (a bound on
 * every wait; default none, as the real tools). {@code -t} (type of service), ucmatose's {@code -m} (migrate) and
 * the gid/ipoib formats are refused.
 */
final class CmatoseOptions {

    /** Which tool. */
    enum Tool {
        UCMATOSE("cmatose", 7471, PortSpace.TCP), UDADDY("udaddy", 7174, PortSpace.UDP);

        final String prefix;
        final int port;
        final PortSpace portSpace;

        Tool(String prefix, int port, PortSpace portSpace) {
            this.prefix = prefix;
            this.port = port;
            this.portSpace = portSpace;
        }
    }

    final Tool tool;
    InetAddress server;
    InetAddress bind;
    int connections = 1;
    int messageCount = 10;
    int messageSize = 100;
    int port;
    PortSpace portSpace;
    long timeoutMs;

    private CmatoseOptions(Tool tool) {
        this.tool = tool;
        this.port = tool.port;
        this.portSpace = tool.portSpace;
    }

    /** Parses {@code args}; throws IllegalArgumentException (the usage follows) on a bad one. */
    static CmatoseOptions parse(Tool tool, String[] args) {
        CmatoseOptions o = new CmatoseOptions(tool);
        Getopt.scan(args, Getopt.handler(name -> {
            if (name.equals("timeout")) {
                return name;
            }
            throw new IllegalArgumentException("unrecognized option '--" + name + "'");
        }, opt -> !opt.equals("m"), o::set, opt -> {
            throw new IllegalArgumentException(opt.equals("m") && tool == Tool.UCMATOSE
                    ? "-m (migrate) is not implemented by jrdma's ucmatose" : "invalid option -- '" + opt + "'");
        }, arg -> {
        }));
        if (o.connections < 1) {
            throw new IllegalArgumentException("-c " + o.connections + ": at least one connection");
        }
        return o;
    }

    private void set(String opt, String v) {
        switch (opt) {
            case "s" -> server = resolve(v);
            case "b" -> bind = resolve(v);
            case "c" -> connections = atoi(v);
            case "C" -> messageCount = Math.max(0, atoi(v));
            case "S" -> messageSize = Math.max(0, atoi(v));
            case "p" -> {
                if (tool == Tool.UCMATOSE) {
                    port = atoi(v);
                } else {
                    portSpace = PortSpace.of((int) Getopt.number(v, "-p"));
                }
            }
            case "P" -> portSpace = portSpace(v);
            case "f" -> {
                String f = v.toLowerCase(Locale.ROOT);
                if (!f.startsWith("ip") && !f.startsWith("name")) {
                    throw new IllegalArgumentException("address format " + v + " is not implemented by jrdma");
                }
            }
            case "t" -> throw new IllegalArgumentException("-t (type of service) is not implemented by jrdma's "
                    + (tool == Tool.UCMATOSE ? "ucmatose" : "udaddy"));
            case "timeout" -> timeoutMs = Getopt.timeoutMillis(v);
            default -> throw new IllegalArgumentException("invalid option -- '" + opt + "'");
        }
    }

    private PortSpace portSpace(String v) {
        String s = v.toLowerCase(Locale.ROOT);
        if (tool == Tool.UCMATOSE) {
            return s.startsWith("ib") ? PortSpace.IB : PortSpace.TCP;
        }
        if (s.startsWith("ipoib")) {
            throw new IllegalArgumentException("port space ipoib is not implemented by jrdma");
        }
        return PortSpace.UDP;
    }

    /** C's atoi: the leading number, 0 when there is none. */
    private static int atoi(String v) {
        int i = 0;
        int sign = 1;
        long n = 0;
        String s = v.strip();
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            sign = s.charAt(i++) == '-' ? -1 : 1;
        }
        while (i < s.length() && Character.isDigit(s.charAt(i)) && n < Integer.MAX_VALUE) {
            n = n * 10 + (s.charAt(i++) - '0');
        }
        return (int) Math.min(Integer.MAX_VALUE, n) * sign;
    }

    private static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("getaddrinfo error: " + e.getMessage());
        }
    }

    /** The real tool's usage text. */
    String usage() {
        String name = tool == Tool.UCMATOSE ? "ucmatose" : "udaddy";
        String ps = tool == Tool.UCMATOSE ? "\t    tcp or ib\n" : "\t    udp\n";
        String tail = tool == Tool.UCMATOSE ? "\t[-p port_number]\n\t[--timeout=SECONDS]"
                : "\t[--timeout=SECONDS]";
        return "usage: " + name + "\n\t[-s server_address]\n\t[-b bind_address]\n\t[-f address_format]\n"
                + "\t    name or ip\n\t[-P port_space]\n" + ps + "\t[-c connections]\n\t[-C message_count]\n"
                + "\t[-S message_size]\n" + tail;
    }
}

package io.jrdma.tools;

import java.util.Locale;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Command-line scanning as glibc's getopt_long does it, for the tools that mimic C programs (ibv_*_pingpong,
 * perftest): clustered short flags ({@code -ec}), a short option's value attached or in the next argument
 * ({@code -s64}, {@code -s 64}), {@code --name=value} or {@code --name value}, and {@code --} ending the options.
 * What the options mean is the caller's {@link Handler}.
 */
public final class Getopt {

    /** The meaning of a tool's options. */
    public interface Handler {
        /** The short name of long option {@code --name}; throws for an unknown one (or returns a name that does). */
        String shortName(String name);

        /** Whether option {@code opt} (a short name) takes a value. */
        boolean takesValue(String opt);

        /** Option {@code opt} with its value. */
        void value(String opt, String value);

        /** Flag {@code opt}. */
        void flag(String opt);

        /** An argument that is not an option. */
        void operand(String arg);
    }

    private Getopt() {
    }

    /**
     * The handler of a C tool's command line: long names map to short ones by {@code shortName}, {@code takesValue}
     * tells the options with a value, {@code value} and {@code flag} take the options, and the one operand a tool
     * may have (the server's name) goes to {@code operand}, a second one being an error.
     */
    public static Handler handler(UnaryOperator<String> shortName, Predicate<String> takesValue,
                                  BiConsumer<String, String> value, Consumer<String> flag, Consumer<String> operand) {
        return new Handler() {
            private boolean hasOperand;

            @Override
            public String shortName(String name) {
                return shortName.apply(name);
            }

            @Override
            public boolean takesValue(String opt) {
                return takesValue.test(opt);
            }

            @Override
            public void value(String opt, String v) {
                value.accept(opt, v);
            }

            @Override
            public void flag(String opt) {
                flag.accept(opt);
            }

            @Override
            public void operand(String arg) {
                if (hasOperand) {
                    throw new IllegalArgumentException("unexpected argument '" + arg + "'");
                }
                hasOperand = true;
                operand.accept(arg);
            }
        };
    }

    /**
     * Scans {@code args}, calling {@code h} for each option and operand in order.
     *
     * @throws IllegalArgumentException for a missing value or a value given to a flag (and whatever {@code h} throws)
     */
    public static void scan(String[] args, Handler h) {
        int i = 0;
        boolean optionsDone = false;
        while (i < args.length) {
            String a = args[i++];
            if (optionsDone || !a.startsWith("-") || a.equals("-")) {
                h.operand(a);
                continue;
            }
            if (a.equals("--")) {
                optionsDone = true;
                continue;
            }
            if (a.startsWith("--")) {
                int eq = a.indexOf('=');
                String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
                String value = eq < 0 ? null : a.substring(eq + 1);
                String opt = h.shortName(name);
                if (h.takesValue(opt)) {
                    if (value == null) {
                        if (i >= args.length) {
                            throw new IllegalArgumentException("option '--" + name + "' requires an argument");
                        }
                        value = args[i++];
                    }
                    h.value(opt, value);
                } else if (value != null) {
                    throw new IllegalArgumentException("option '--" + name + "' doesn't allow an argument");
                } else {
                    h.flag(opt);
                }
                continue;
            }
            for (int c = 1; c < a.length(); c++) {
                String opt = a.substring(c, c + 1);
                if (h.takesValue(opt)) {
                    String value = a.substring(c + 1);
                    if (value.isEmpty()) {
                        if (i >= args.length) {
                            throw new IllegalArgumentException("option requires an argument -- '" + opt + "'");
                        }
                        value = args[i++];
                    }
                    h.value(opt, value);
                    break;
                }
                h.flag(opt);
            }
        }
    }

    /** A timeout in seconds (0 < s <= 1 day), as the tools' {@code --timeout}, in milliseconds. */
    public static long timeoutMillis(String value) {
        double s;
        try {
            s = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            s = -1;
        }
        if (s <= 0 || s > 86400) {
            throw new IllegalArgumentException("bad timeout '" + value + "' (seconds)");
        }
        return Math.round(s * 1000);
    }

    /** C's strtoul(s, NULL, 0) (decimal, 0x hex, 0 octal), but strict: the whole string must be a number. */
    public static long number(String s, String option) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("0x")) {
                return Long.parseLong(t.substring(2), 16);
            }
            if (t.length() > 1 && t.startsWith("0")) {
                return Long.parseLong(t.substring(1), 8);
            }
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad value '" + s + "' for " + option);
        }
    }
}

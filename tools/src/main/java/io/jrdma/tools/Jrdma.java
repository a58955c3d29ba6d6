package io.jrdma.tools;

import io.jrdma.tools.cmatose.UcmatoseCommand;
import io.jrdma.tools.cmatose.UdaddyCommand;
import io.jrdma.tools.perftest.PerftestCommand;
import io.jrdma.tools.pingpong.RcPingpongCommand;
import io.jrdma.tools.pingpong.UdPingpongCommand;
import io.jrdma.tools.rping.RpingCommand;
import io.jrdma.tools.scale.ScaleCommand;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code jrdma} command: {@code demo}, {@code hello-verbs}, {@code throughput}, {@code devices},
 * {@code devinfo}, {@code link}, {@code stat}, {@code monitor}, {@code capture}, {@code trace}, {@code rc_pingpong},
 * {@code ud_pingpong}, librdmacm's {@code rping}, {@code ucmatose} and {@code udaddy}, perftest's {@code ib_send_bw},
 * {@code ib_send_lat}, {@code ib_write_bw}, {@code ib_write_lat}, {@code ib_read_bw}, {@code ib_read_lat},
 * {@code ib_atomic_bw} and {@code ib_atomic_lat}, and {@code bench} (jrdma against NIO and Aeron,
 * {@link io.jrdma.tools.compare.BenchCommand}). Each subcommand is a thin class over shared option
 * ({@link DeviceSelection}) and report ({@link DeviceReport}) code. Exit status: 0 success, 1 failure, 2 bad usage.
 */
@Command(name = "jrdma", mixinStandardHelpOptions = true, versionProvider = Jrdma.Version.class,
        description = "RDMA verbs for Java with a software RoCEv2 device.")
public final class Jrdma implements Callable<Integer> {

    /** The subcommands besides perftest's, in the order the usage lists them. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(DemoCommand.class, HelloVerbsCommand.class,
            DevicesCommand.class, DevinfoCommand.class, ThroughputCommand.class, LinkCommand.class, StatCommand.class,
            MonitorCommand.class, CaptureCommand.class, TraceCommand.class, RcPingpongCommand.class,
            UdPingpongCommand.class, RpingCommand.class, UcmatoseCommand.class, UdaddyCommand.class,
            NoncontigCommand.class, ScaleCommand.class, io.jrdma.tools.compare.BenchCommand.class);

    /** Exit status of a failed command. */
    public static final int FAILURE = 1;
    /** Exit status of a command line that could not be parsed. */
    public static final int USAGE = 2;

    @Spec
    private CommandSpec spec;

    /** Used by picocli. */
    public Jrdma() {
    }

    /** Runs the command line {@code args} and exits with its status. */
    public static void main(String[] args) {
        if (args.length > 0 && GetoptTools.find(args[0]) != null) {
            System.exit(GetoptTools.run(args, System.err));
        }
        System.exit(commandLine(args.length == 0 ? null : args[0]).execute(args));
    }

    /** The configured command line with every subcommand: usage errors exit 2, failures print one line and exit 1. */
    public static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * The configured command line for running subcommand {@code first}: only that one is built when it names one (its
     * model is made by reflection over its annotations, which for all of them together is most of a tool's start-up
     * in an emulated guest), every one otherwise (null, an option, a misspelled name), so usage and errors list them.
     */
    public static CommandLine commandLine(String first) {
        CommandLine cl = new CommandLine(new Jrdma());
        Class<?> only = first == null ? null
                : SUBCOMMANDS.stream().filter(c -> c.getAnnotation(Command.class).name().equals(first)).findFirst()
                        .orElse(null);
        if (only != null) {
            cl.addSubcommand(only);
        } else if (first == null || !PerftestCommand.register(cl, first)) {
            SUBCOMMANDS.forEach(cl::addSubcommand);
            PerftestCommand.register(cl);
        }
        configure(cl, HelloVerbsCommand.NAME, true, false);
        for (String tool : new String[] {RcPingpongCommand.NAME, UdPingpongCommand.NAME, RpingCommand.NAME,
            UcmatoseCommand.NAME, UdaddyCommand.NAME}) {
            // the real tools' getopt command line: every argument goes to the tool's own parser
            configure(cl, tool, true, true);
        }
        for (String wrapper : new String[] {"capture", "trace"}) {
            // everything from the wrapped command's name on belongs to it, options included
            configure(cl, wrapper, false, true);
        }
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": error: " + message(e));
            cmd.getErr().flush();
            return FAILURE;
        });
        return cl;
    }

    private static void configure(CommandLine cl, String name, boolean unmatchedArePositional,
            boolean stopAtPositional) {
        CommandLine sub = cl.getSubcommands().get(name);
        if (sub != null) {
            if (unmatchedArePositional) {
                sub.setUnmatchedOptionsArePositionalParams(true);
            }
            if (stopAtPositional) {
                sub.setStopAtPositional(true);
            }
        }
    }

    /** Without a subcommand: prints the usage and fails. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    static String message(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.toString() : m;
    }

    /** The version from the jar manifest (Implementation-Version). */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Jrdma.class.getPackage().getImplementationVersion();
            return new String[] {"jrdma " + (v == null ? "(development build)" : v)};
        }
    }
}

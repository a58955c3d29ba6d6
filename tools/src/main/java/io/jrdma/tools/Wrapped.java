package io.jrdma.tools;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Runs a jrdma command line in this process with a device option set for its duration (capture, trace). */
final class Wrapped {

    private Wrapped() {
    }

    /** Runs {@code args} as a jrdma command with system property {@code property} set to {@code value}. */
    static int run(CommandSpec wrapper, String property, String value, List<String> args) {
        if (!args.isEmpty() && (args.getFirst().equals("capture") || args.getFirst().equals("trace"))) {
            // one level is enough: the options combine through the environment instead
            throw new CommandLine.ParameterException(wrapper.commandLine(), "cannot wrap " + args.getFirst()
                    + " in " + wrapper.name() + "; set JRDMA_CAPTURE / JRDMA_TRACE instead");
        }
        String before = System.getProperty(property);
        System.setProperty(property, value);
        try {
            CommandLine inner = Jrdma.commandLine(args.isEmpty() ? null : args.getFirst()).setOut(wrapper.commandLine().getOut())
                    .setErr(wrapper.commandLine().getErr());
            return inner.execute(args.toArray(String[]::new));
        } finally {
            if (before == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, before);
            }
        }
    }
}

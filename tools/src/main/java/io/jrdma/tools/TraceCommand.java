package io.jrdma.tools;

import io.jrdma.soft.PacketTrace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma trace [-o FILE] -- COMMAND...}: runs a jrdma command with every soft device it opens printing one
 * line per packet ({@link PacketTrace}; the {@code jrdma.trace} option, {@code JRDMA_TRACE} for other programs).
 */
@Command(name = "trace", mixinStandardHelpOptions = true,
        description = {"Runs a jrdma command and prints every packet its soft devices send and receive, one line "
                + "each: time, device, tx/rx, addresses, size, opcode, QP, PSN, AckReq, payload length, RETH, "
                + "AETH (ACK/NAK syndrome), immediate data.",
            "  jrdma trace -- demo",
            "Other programs: JRDMA_TRACE=stderr|stdout|FILE (or -Djrdma.trace=...)."})
final class TraceCommand implements Callable<Integer> {

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write the trace to FILE (default: "
            + "standard error)")
    private Path file;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "the jrdma command to run, with its arguments")
    private List<String> command = new ArrayList<>();

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        return Wrapped.run(spec, "jrdma.trace", file == null ? "stderr" : file.toString(), command);
    }
}

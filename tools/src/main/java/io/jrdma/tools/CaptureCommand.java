package io.jrdma.tools;

import io.jrdma.soft.PcapCapture;
import java.io.IOException;
import java.io.PrintWriter;
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
 * {@code jrdma capture -w FILE -- COMMAND...}: runs a jrdma command with every soft device it opens capturing its
 * packets into one pcap file (the {@code jrdma.capture} option, see {@link PcapCapture}). A soft device lives in
 * the process that uses it, so capture wraps the command; other programs set {@code JRDMA_CAPTURE=FILE}.
 */
@Command(name = "capture", mixinStandardHelpOptions = true,
        description = {"Runs a jrdma command and writes every packet its soft devices send and receive to a pcap "
                + "file that Wireshark/tshark decode as RoCEv2:",
            "  jrdma capture -w demo.pcap -- demo",
            "  tshark -r demo.pcap -d udp.port==4791,infiniband",
            "Other programs: JRDMA_CAPTURE=FILE (or -Djrdma.capture=FILE); JRDMA_CAPTURE_MAX_PACKETS and "
                + "JRDMA_CAPTURE_MAX_BYTES bound it."})
final class CaptureCommand implements Callable<Integer> {

    @Option(names = {"-w", "--write"}, required = true, paramLabel = "FILE", description = "the pcap file to write")
    private Path file;

    @Option(names = {"-c", "--count"}, paramLabel = "PACKETS", defaultValue = "" + Long.MAX_VALUE,
            description = "stop capturing after PACKETS packets (default: no bound)", showDefaultValue =
            picocli.CommandLine.Help.Visibility.NEVER)
    private long maxPackets;

    @Option(names = {"-C", "--max-mb"}, paramLabel = "MB", defaultValue = "64",
            description = "stop capturing before the file passes MB megabytes (default 64)")
    private long maxMb;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "the jrdma command to run, with its arguments")
    private List<String> command = new ArrayList<>();

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (maxPackets < 1 || maxMb < 1) {
            throw new IllegalArgumentException("--count and --max-mb must be positive");
        }
        PrintWriter err = spec.commandLine().getErr();
        PcapCapture capture = PcapCapture.open(file, maxPackets, maxMb << 20);
        int rc;
        try {
            rc = Wrapped.run(spec, "jrdma.capture", file.toString(), command);
        } finally {
            capture.close();
        }
        err.println("jrdma capture: " + capture.packets() + " packets written to " + file
                + (capture.full() ? " (stopped at the bound)" : ""));
        err.flush();
        return rc;
    }
}

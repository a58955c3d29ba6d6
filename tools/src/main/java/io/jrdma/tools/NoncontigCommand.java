package io.jrdma.tools;

import io.jrdma.examples.ThreadingSetting;
import io.jrdma.examples.noncontig.Layout;
import io.jrdma.examples.noncontig.Noncontig;
import io.jrdma.examples.noncontig.NoncontigConfig;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Mtu;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code jrdma noncontig}: scatter/gather zero-copy against CPU packing for non-contiguous data. */
@Command(name = "noncontig", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 120,
        description = {"Non-contiguous data — block_num blocks of block_size bytes, stride bytes apart — moved "
                + "between soft devices on two addresses in one process, six ways:",
            "  gather-WRITE    sender's SGE list over its strided blocks -> contiguous remote buffer "
                    + "(one RDMA WRITE per max_sge blocks, each to its remote offset, the last WITH_IMM)",
            "  pack-WRITE      sender memcpys the blocks into a contiguous staging buffer, one RDMA WRITE WITH_IMM",
            "  scatter-READ    contiguous remote region -> reader's SGE list over its strided blocks "
                    + "(one RDMA READ per max_sge blocks)",
            "  pack-READ       one RDMA READ into a contiguous staging buffer, then memcpy into the strided blocks",
            "  sg-SEND/RECV    strided at both ends: SEND gather lists, RECVs whose scatter lists match "
                    + "(one of each per max_sge blocks)",
            "  pack-SEND/RECV  pack, one SEND into one contiguous RECV buffer, the receiver unpacks",
            "Each message carries new bytes and is verified at its destination (exit 1 on a mismatch). "
                    + "Without --block-size, block_size sweeps --min..--max (doubling) or --sizes.",
            ""})
final class NoncontigCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--block-size", paramLabel = "BYTES",
            description = "one layout with this block size (suffixes K, M), instead of a sweep")
    private String blockSize;

    @Option(names = "--block-num", paramLabel = "N", defaultValue = "" + NoncontigConfig.DEFAULT_BLOCK_NUM,
            description = "blocks per message (default ${DEFAULT-VALUE})")
    private int blockNum;

    @Option(names = "--stride", paramLabel = "BYTES",
            description = "bytes from one block's start to the next one's, at least block_size (default 2 x "
                    + "block_size)")
    private String stride;

    @Option(names = "--sizes", paramLabel = "LIST", description = "sweep these block sizes, e.g. 8,64,512,4K")
    private String sizes;

    @Option(names = "--min", paramLabel = "BYTES", description = "smallest block size of the sweep (default 8)")
    private String min;

    @Option(names = "--max", paramLabel = "BYTES", description = "largest block size of the sweep (default 64K)")
    private String max;

    @Option(names = "--max-sge", paramLabel = "N",
            description = "SGEs per work request, at most the device's max_sge (default: the device's, 32 on soft)")
    private Integer maxSge;

    @Option(names = {"-n", "--iterations"}, paramLabel = "N", defaultValue = "100",
            description = "measured messages per point, at most (default ${DEFAULT-VALUE})")
    private int iterations;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "3",
            description = "unmeasured (but verified) messages per point first (default ${DEFAULT-VALUE})")
    private int warmup;

    @Option(names = "--duration-ms", paramLabel = "MS", defaultValue = "500",
            description = "time per point, at most (default ${DEFAULT-VALUE})")
    private long durationMs;

    @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES", defaultValue = "4096",
            description = "path MTU (default ${DEFAULT-VALUE})")
    private int mtu;

    @Option(names = {"-t", "--threading"},
            description = "engine threading: ADAPTIVE, INVOKER or DEDICATED (default: jrdma.threading / "
                    + "JRDMA_THREADING, else the library's default, ADAPTIVE)")
    private Threading threading;

    @Option(names = "--addr-a", paramLabel = "ADDR", defaultValue = "127.0.0.1",
            description = "address of side A, the sender and reader (default ${DEFAULT-VALUE})")
    private String addrA;

    @Option(names = "--addr-b", paramLabel = "ADDR", defaultValue = "127.0.0.2",
            description = "address of side B, the receiver and READ target (default ${DEFAULT-VALUE})")
    private String addrB;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "longest wait for a completion (default ${DEFAULT-VALUE})")
    private long timeoutSeconds;

    @Option(names = "--csv", paramLabel = "FILE", description = "write one row per method and layout")
    private Path csv;

    @Option(names = "--plot", paramLabel = "FILE",
            description = "write a plot of MB/s against message size, one line per method: .svg or .png "
                    + "(may be repeated)")
    private List<Path> plots = new ArrayList<>();

    @Override
    public Integer call() {
        NoncontigConfig cfg;
        try {
            cfg = config();
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("noncontig: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return Jrdma.USAGE;
        }
        return Noncontig.run(spec.commandLine().getOut(), spec.commandLine().getErr(), cfg);
    }

    private NoncontigConfig config() {
        long strideBytes = stride == null ? 0 : NoncontigConfig.parseSize(stride);
        if (stride != null && strideBytes < 1) {
            throw new IllegalArgumentException("--stride must be at least 1");
        }
        List<Layout> layouts;
        if (blockSize != null) {
            if (sizes != null || min != null || max != null) {
                throw new IllegalArgumentException("give either --block-size (one layout) or --sizes / --min / "
                        + "--max (a sweep), not both");
            }
            layouts = NoncontigConfig.sweep(NoncontigConfig.parseSizes(blockSize), blockNum, strideBytes);
        } else if (sizes != null) {
            if (min != null || max != null) {
                throw new IllegalArgumentException("give either --sizes or --min / --max, not both");
            }
            layouts = NoncontigConfig.sweep(NoncontigConfig.parseSizes(sizes), blockNum, strideBytes);
        } else {
            long lo = min == null ? NoncontigConfig.DEFAULT_MIN_BLOCK : NoncontigConfig.parseSize(min);
            long hi = max == null ? NoncontigConfig.DEFAULT_MAX_BLOCK : NoncontigConfig.parseSize(max);
            layouts = NoncontigConfig.sweep(NoncontigConfig.doubling(lo, hi), blockNum, strideBytes);
        }
        if (maxSge != null && maxSge < 1) {
            throw new IllegalArgumentException("--max-sge must be at least 1, not " + maxSge);
        }
        if (durationMs < 1) {
            throw new IllegalArgumentException("--duration-ms must be at least 1");
        }
        if (timeoutSeconds < 1) {
            throw new IllegalArgumentException("--timeout must be at least 1 second");
        }
        return new NoncontigConfig(layouts, maxSge == null ? 0 : maxSge, iterations, warmup,
                Duration.ofMillis(durationMs), Mtu.ofBytes(mtu),
                threading != null ? threading : ThreadingSetting.orDefault(), addrA, addrB,
                Duration.ofSeconds(timeoutSeconds), csv, plots);
    }
}

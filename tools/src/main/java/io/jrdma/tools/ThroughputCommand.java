package io.jrdma.tools;

import io.jrdma.examples.ThreadingSetting;
import io.jrdma.examples.Throughput;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Mtu;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jrdma throughput}: RDMA WRITE/READ bandwidth in one process against a memory-copy baseline. */
@Command(name = "throughput", mixinStandardHelpOptions = true,
        description = {"RDMA WRITE and READ of large messages between soft devices on two addresses (default "
                + "127.0.0.1 and 127.0.0.2), with a memory-copy baseline measured in the same run."})
final class ThroughputCommand implements Callable<Integer> {

    @Option(names = {"-s", "--size-mib"}, defaultValue = "256", description = "message size in MiB (default 256)")
    private int sizeMib;

    @Option(names = {"-m", "--mtu"}, defaultValue = "4096", description = "path MTU in bytes (default 4096)")
    private int mtu;

    @Option(names = {"-t", "--threading"},
            description = "engine threading: ADAPTIVE, INVOKER or DEDICATED (default: jrdma.threading / "
                    + "JRDMA_THREADING, else the library's default, ADAPTIVE)")
    private Threading threading;

    @Option(names = {"-a", "--address-a"}, paramLabel = "IPV4", defaultValue = Throughput.ADDRESS_A,
            description = "the first device's address (default ${DEFAULT-VALUE})")
    private String addressA;

    @Option(names = {"-b", "--address-b"}, paramLabel = "IPV4", defaultValue = Throughput.ADDRESS_B,
            description = "the second device's address (default ${DEFAULT-VALUE})")
    private String addressB;

    @Option(names = {"-r", "--rounds"}, defaultValue = "5", description = "measured rounds, best kept (default 5)")
    private int rounds;

    @Override
    public Integer call() {
        if (sizeMib < 1 || sizeMib > 1024) {
            System.err.println("throughput: --size-mib must be 1..1024");
            return 2;
        }
        Mtu m = Mtu.ofBytes(mtu);
        Threading t = threading != null ? threading : ThreadingSetting.orDefault();
        return Throughput.run(System.out, (long) sizeMib << 20, m, t, Math.max(1, rounds), addressA, addressB);
    }
}

package io.jrdma.tools;

import io.jrdma.examples.Throughput;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Mtu;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jrdma throughput}: RDMA WRITE/READ bandwidth in one process against a memory-copy baseline. */
@Command(name = "throughput", mixinStandardHelpOptions = true,
        description = {"RDMA WRITE and READ of large messages between soft devices on 127.0.0.1 and 127.0.0.2, "
                + "with a memory-copy baseline measured in the same run."})
final class ThroughputCommand implements Callable<Integer> {

    @Option(names = {"-s", "--size-mib"}, defaultValue = "256", description = "message size in MiB (default 256)")
    private int sizeMib;

    @Option(names = {"-m", "--mtu"}, defaultValue = "4096", description = "path MTU in bytes (default 4096)")
    private int mtu;

    @Option(names = {"-t", "--threading"}, defaultValue = "DEDICATED",
            description = "engine threading: DEDICATED or INVOKER (default DEDICATED)")
    private Threading threading;

    @Option(names = {"-r", "--rounds"}, defaultValue = "5", description = "measured rounds, best kept (default 5)")
    private int rounds;

    @Override
    public Integer call() {
        if (sizeMib < 1 || sizeMib > 1024) {
            System.err.println("throughput: --size-mib must be 1..1024");
            return 2;
        }
        Mtu m = Mtu.ofBytes(mtu);
        return Throughput.run(System.out, (long) sizeMib << 20, m, threading, Math.max(1, rounds));
    }
}

package io.jrdma.tools;

import io.jrdma.examples.DemoRun;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jrdma demo}: runs {@link DemoRun}. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Two soft RoCEv2 devices on 127.0.0.1 and 127.0.0.2 in this process: SEND/RECV, "
                + "SEND_WITH_IMM, RDMA WRITE and RDMA READ over an RC connection, printing every packet."})
final class DemoCommand implements Callable<Integer> {

    @Option(names = {"-a", "--address-a"}, paramLabel = "IPV4", defaultValue = DemoRun.ADDRESS_A,
            description = "the first device's address (default ${DEFAULT-VALUE})")
    private String addressA;

    @Option(names = {"-b", "--address-b"}, paramLabel = "IPV4", defaultValue = DemoRun.ADDRESS_B,
            description = "the second device's address (default ${DEFAULT-VALUE})")
    private String addressB;

    @Override
    public Integer call() {
        return DemoRun.run(System.out, addressA, addressB);
    }
}

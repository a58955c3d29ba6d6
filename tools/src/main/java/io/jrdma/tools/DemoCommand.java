package io.jrdma.tools;

import io.jrdma.examples.DemoRun;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jrdma demo}: runs {@link DemoRun}. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Two soft RoCEv2 devices on 127.0.0.1 and 127.0.0.2 in this process: SEND/RECV, "
                + "SEND_WITH_IMM, RDMA WRITE and RDMA READ over an RC connection, printing every packet."})
final class DemoCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        return DemoRun.run(System.out);
    }
}

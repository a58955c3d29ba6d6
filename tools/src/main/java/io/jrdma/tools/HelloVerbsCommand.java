package io.jrdma.tools;

import io.jrdma.examples.HelloVerbs;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jrdma hello-verbs ...}: hands every argument to {@link HelloVerbs}, which parses its own options. */
@Command(name = HelloVerbsCommand.NAME,
        description = {"The classic verbs course example: a client RDMA-WRITEs \"hello verbs\" into a server's buffer.",
            "  jrdma hello-verbs server [--addr 127.0.0.1] [--port 18515] [--timeout 10]",
            "  jrdma hello-verbs client SERVER_HOST [--addr 127.0.0.2] [--port 18515] [--timeout 10]"})
final class HelloVerbsCommand implements Callable<Integer> {

    static final String NAME = "hello-verbs";

    @Parameters(paramLabel = "ARG", description = "server|client and their options (see hello-verbs --help)")
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return HelloVerbs.run(args.toArray(String[]::new), System.out, System.err);
    }
}

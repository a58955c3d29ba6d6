package io.jrdma.tools.cmatose;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jrdma ucmatose [options]}: librdmacm's ucmatose, RC connections over the CM (see {@link Cmatose}). */
@Command(name = UcmatoseCommand.NAME,
        description = {"ucmatose: many RC connections over rdma_cm, messages both ways, with ucmatose's flags.",
            "  jrdma ucmatose [-b addr] [-c connections] [-C count] [-S size] [-p port]            (server)",
            "  jrdma ucmatose -s server [-b addr] [-c connections] [-C count] [-S size] [-p port]  (client)"})
public final class UcmatoseCommand implements Callable<Integer> {

    public static final String NAME = "ucmatose";

    @Parameters(paramLabel = "ARG", description = "ucmatose's options")
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return Cmatose.run(CmatoseOptions.Tool.UCMATOSE, args.toArray(String[]::new), System.out, System.err);
    }
}

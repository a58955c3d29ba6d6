package io.jrdma.tools;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code jrdma devinfo}: device and port attributes, as ibv_devinfo prints them. */
@Command(name = "devinfo", mixinStandardHelpOptions = true,
        description = "Prints the attributes of RDMA devices and their ports (as ibv_devinfo).")
final class DevinfoCommand implements Callable<Integer> {

    @Mixin
    private DeviceSelection selection;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "only port PORT (default: all ports)")
    private int port;

    @Option(names = {"-l", "--list"}, description = "print only the device names")
    private boolean list;

    @Option(names = {"-v", "--verbose"}, description = "also print the device limits and the GID table")
    private boolean verbose;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<Device> devices = selection.devices();
        if (list) {
            out.print(DeviceReport.names(devices));
        } else {
            for (Device d : devices) {
                try (Context ctx = d.open()) {
                    out.print(DeviceReport.devinfo(ctx, port, verbose));
                }
            }
        }
        out.flush();
        return 0;
    }
}

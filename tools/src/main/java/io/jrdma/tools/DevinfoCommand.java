package io.jrdma.tools;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
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

    /**
     * A context to query: a soft device is opened for queries only, so that devinfo works while another process
     * uses the device (ibv_devinfo can always open a kernel device).
     */
    private static Context open(Device d) {
        return d instanceof SoftDevice soft ? soft.openForQuery() : d.open();
    }

    @Override
    public Integer call() {
        if (port < 0) {
            throw new ParameterException(spec.commandLine(), "--ib-port must be a port number (1, ...)");
        }
        PrintWriter out = spec.commandLine().getOut();
        List<Device> devices = selection.devices();
        if (list) {
            out.print(DeviceReport.names(devices));
        } else {
            for (Device d : devices) {
                try (Context ctx = open(d)) {
                    out.print(DeviceReport.devinfo(ctx, port, verbose));
                }
            }
        }
        out.flush();
        return 0;
    }
}

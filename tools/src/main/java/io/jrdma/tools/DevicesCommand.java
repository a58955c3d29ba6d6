package io.jrdma.tools;

import io.jrdma.verbs.Verbs;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code jrdma devices}: the device list, as ibv_devices prints it. */
@Command(name = "devices", mixinStandardHelpOptions = true,
        description = "Lists the RDMA devices and their node GUIDs (as ibv_devices).")
final class DevicesCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.print(DeviceReport.devices(Verbs.devices()));
        out.flush();
        return 0;
    }
}

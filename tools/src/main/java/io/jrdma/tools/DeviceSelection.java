package io.jrdma.tools;

import io.jrdma.verbs.Device;
import io.jrdma.verbs.Verbs;
import java.util.List;
import picocli.CommandLine.Option;

/** The {@code -d/--ib-dev} option shared by the tools that work on one device or on all of them (as ibv_devinfo). */
final class DeviceSelection {

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV",
            description = "use device DEV (default: every device; see jrdma devices)")
    private String name;

    /** The named device, or every device when none was named. */
    List<Device> devices() {
        if (name == null) {
            List<Device> all = Verbs.devices();
            if (all.isEmpty()) {
                throw new IllegalStateException("no RDMA devices found");
            }
            return all;
        }
        return List.of(Verbs.device(name));
    }
}

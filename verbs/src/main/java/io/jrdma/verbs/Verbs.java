package io.jrdma.verbs;

import io.jrdma.verbs.spi.Provider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Entry point: the devices of every installed provider (ibv_get_device_list). */
public final class Verbs {

    private Verbs() {
    }

    /** Every device of every provider on the class path, in provider order. */
    public static List<Device> devices() {
        List<Device> all = new ArrayList<>();
        for (Provider p : ServiceLoader.load(Provider.class)) {
            all.addAll(p.devices());
        }
        return List.copyOf(all);
    }

    /**
     * The device called {@code name}, or the first device when {@code name} is null.
     *
     * @throws VerbsException ENODEV when there is no such device
     */
    public static Device device(String name) {
        List<Device> all = devices();
        if (all.isEmpty()) {
            throw new VerbsException(Errno.ENODEV, "no RDMA device found (is a provider on the class path?)");
        }
        if (name == null) {
            return all.getFirst();
        }
        for (Device d : all) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        throw new VerbsException(Errno.ENODEV, "no RDMA device named '" + name + "' (have: "
                + all.stream().map(Device::name).toList() + ")");
    }
}

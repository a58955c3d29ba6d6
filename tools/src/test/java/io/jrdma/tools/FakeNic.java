package io.jrdma.tools;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import java.lang.reflect.Proxy;

/** A context of a device that is not a soft one (a hardware NIC's, to the tools); only its device may be asked for. */
public final class FakeNic {

    private FakeNic() {
    }

    /** The context of a device named {@code name} of the ibverbs provider. */
    public static Context context(String name) {
        Device nic = (Device) Proxy.newProxyInstance(Device.class.getClassLoader(), new Class<?>[] {Device.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "name" -> name;
                    case "provider" -> "ibverbs";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        return (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("device")) {
                        return nic;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }
}

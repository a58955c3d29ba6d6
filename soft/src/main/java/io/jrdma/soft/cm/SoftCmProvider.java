package io.jrdma.soft.cm;

import io.jrdma.cm.EventChannel;
import io.jrdma.cm.spi.CmProvider;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.SoftProvider;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.spi.Provider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The soft provider's connection manager: the IBTA CM over each soft device's QP 1, wire-compatible with the
 * kernel's ib_cm and rdma_cm. One {@link CmAgent} per device, started when an id first binds to it.
 */
public final class SoftCmProvider implements CmProvider {

    private static final CmRegistry SHARED = new CmRegistry(SoftCmProvider::softDevices);

    /** Used by {@link java.util.ServiceLoader}. */
    public SoftCmProvider() {
    }

    private static List<SoftDevice> softDevices() {
        List<SoftDevice> out = new ArrayList<>();
        for (Device d : new SoftProvider().devices()) {
            out.add((SoftDevice) d);
        }
        return out;
    }

    @Override
    public String name() {
        return SoftProvider.NAME;
    }

    @Override
    public int order() {
        return Provider.SOFTWARE_ORDER;
    }

    @Override
    public Optional<String> unavailableReason() {
        return softDevices().isEmpty() ? Optional.of("no soft device is configured") : Optional.empty();
    }

    @Override
    public EventChannel createEventChannel() {
        return new SoftEventChannel(SHARED);
    }
}

package io.jrdma.ibverbs;

import io.jrdma.cm.EventChannel;
import io.jrdma.cm.spi.CmProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.spi.Provider;
import java.util.Optional;

/**
 * The native connection manager, {@code ibverbs}: librdmacm.so.1 bound through the FFM API, chosen before the soft
 * one. Without libibverbs' devices, without librdmacm or without /dev/infiniband/rdma_cm it is unavailable and
 * {@link #unavailableReason()} says why; nothing is thrown at the caller, and {@link EventChannel#create()} takes
 * the next provider. The system property {@value LibRdmacm#LIBRARY_PROPERTY} names another library than
 * {@value LibRdmacm#DEFAULT_LIBRARY}.
 */
public final class IbvCmProvider implements CmProvider {

    /** Used by {@link java.util.ServiceLoader}. */
    public IbvCmProvider() {
    }

    @Override
    public String name() {
        return IbvProvider.NAME;
    }

    @Override
    public int order() {
        return Provider.NATIVE_ORDER;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(LibRdmacm.reason());
    }

    /**
     * Opens a librdmacm event channel.
     *
     * @throws VerbsException ENODEV with the reason when the provider is unavailable
     */
    @Override
    public EventChannel createEventChannel() {
        LibRdmacm lib = LibRdmacm.get();
        if (lib == null) {
            throw new VerbsException(Errno.ENODEV, "the native connection manager is unavailable: "
                    + LibRdmacm.reason());
        }
        return IbvEventChannel.create(lib);
    }
}

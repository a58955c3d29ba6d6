package io.jrdma.cm.spi;

import io.jrdma.cm.EventChannel;
import java.util.Optional;

/**
 * A connection manager implementation, found with {@link java.util.ServiceLoader}: the soft provider's (the IBTA
 * CM over the soft devices' QP1) and the native one's (librdmacm). {@link EventChannel#create()} takes the first
 * available by ascending {@link #order()}.
 */
public interface CmProvider {

    /** The provider's name: the same as its verbs {@link io.jrdma.verbs.spi.Provider#name()}. */
    String name();

    /** Where this provider comes in the choice: as {@link io.jrdma.verbs.spi.Provider#order()}. */
    int order();

    /** Why this provider cannot be used now (no library, no device); empty when it can. */
    Optional<String> unavailableReason();

    /** Opens an event channel. */
    EventChannel createEventChannel();
}

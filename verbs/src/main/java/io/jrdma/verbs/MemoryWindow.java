package io.jrdma.verbs;

/**
 * A memory window (ibv_mw): remote access to a part of a memory region, granted and revoked without
 * re-registering. A new window is unbound; binding it gives it an rkey, a range inside an MR that allows
 * {@link Access#MW_BIND}, and remote access rights.
 */
public interface MemoryWindow extends AutoCloseable {

    /** The protection domain. */
    ProtectionDomain pd();

    /** The window type. */
    MwType type();

    /**
     * The current rkey (ibv_mw.rkey): changes when a bind is posted (to the key it gives the window), as
     * ibv_bind_mw does; meaningless while the window is unbound.
     */
    int rkey();

    /** Deallocates the window (ibv_dealloc_mw); its rkey stops working at once. */
    @Override
    void close();
}

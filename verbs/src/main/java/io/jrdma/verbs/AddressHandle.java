package io.jrdma.verbs;

/**
 * An address handle (ibv_ah): a remote port's address, used by UD send requests ({@link SendWr#ah}). Created
 * from a PD; a QP may only use address handles of its own PD.
 */
public interface AddressHandle extends AutoCloseable {

    /** The protection domain the handle belongs to. */
    ProtectionDomain pd();

    /** A copy of the address vector the handle was created with. */
    AhAttr attr();

    /** Destroys the handle (ibv_destroy_ah); requests already posted with it still reach their destination. */
    @Override
    void close();
}

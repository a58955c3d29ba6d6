package io.jrdma.examples;

/** Releasing verbs resources in order, as a program's teardown must (QPs before CQs and MRs, PDs, the context). */
public final class Resources {

    private Resources() {
    }

    /**
     * Closes every non-null resource in the given order, going on after a failure.
     *
     * @throws RuntimeException the first failure (a checked one wrapped), with the later ones suppressed; the caller
     *                          then keeps the memory the resources used mapped, since the device may still use it
     */
    public static void closeAll(AutoCloseable... resources) {
        closeAll(null, resources);
    }

    /**
     * Closes every non-null resource of {@code first} (null: none) in order, then every non-null one of {@code then},
     * going on after a failure: a program's QPs, then its CQs, MRs, PD and context.
     *
     * @throws RuntimeException the first failure (a checked one wrapped), with the later ones suppressed
     */
    public static void closeAll(AutoCloseable[] first, AutoCloseable... then) {
        RuntimeException failure = null;
        if (first != null) {
            failure = closeEach(first, null);
        }
        failure = closeEach(then, failure);
        if (failure != null) {
            throw failure;
        }
    }

    private static RuntimeException closeEach(AutoCloseable[] resources, RuntimeException failureSoFar) {
        RuntimeException failure = failureSoFar;
        for (AutoCloseable c : resources) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }
}

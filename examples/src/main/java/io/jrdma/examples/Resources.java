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
        RuntimeException failure = null;
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
        if (failure != null) {
            throw failure;
        }
    }
}

package io.jrdma.ibverbs.rxe;

import java.util.Map;

/**
 * Conformance cases whose assertion does not hold on kernel rxe through the native provider, each with the reason:
 * a documented behaviour of the kernel (or of this test environment) that differs from the soft provider's.
 * {@link NativeTckMain} reports such a failure as DIFF with the reason instead of failing the run.
 */
final class KnownDifferences {

    private static final Map<String, String> REASONS = Map.of();

    private KnownDifferences() {
    }

    /** Why {@code test} ("IbvQpTck#method") may fail on kernel rxe, or null when it must pass. */
    static String reason(String test) {
        return REASONS.get(test);
    }
}

package io.jrdma.tools.compare;

/**
 * One line of the table: a jrdma figure, a baseline figure measured in the same run, their ratio and the verdict
 * against the goal. A figure is NaN when every run of its case failed.
 *
 * @param scenario what was measured
 * @param metric   the figure and its unit
 * @param jrdma    jrdma's figure
 * @param baseline what it is compared with
 * @param base     the baseline's figure
 * @param goal     the goal for the ratio
 */
record Row(String scenario, String metric, double jrdma, String baseline, double base, Goal goal) {

    /** What the ratio jrdma / baseline must be. */
    enum Goal {
        /** jrdma at least as high (bandwidth, rate). */
        AT_LEAST("\u2265 1.0"),
        /** jrdma at most as high (latency). */
        AT_MOST("\u2264 1.0"),
        /** Reported only. */
        INFO("-");

        final String text;

        Goal(String text) {
            this.text = text;
        }
    }

    double ratio() {
        return jrdma / base;
    }

    /** PASS or FAIL against the goal, "info" without one, ERROR when a figure is missing. */
    String verdict() {
        double r = ratio();
        if (Double.isNaN(r) || Double.isInfinite(r)) {
            return "ERROR";
        }
        return switch (goal) {
            case AT_LEAST -> r >= 1.0 ? "PASS" : "FAIL";
            case AT_MOST -> r <= 1.0 ? "PASS" : "FAIL";
            case INFO -> "info";
        };
    }
}

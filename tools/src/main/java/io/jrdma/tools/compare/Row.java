package io.jrdma.tools.compare;

import java.math.BigDecimal;

/**
 * One line of the table: a jrdma figure, a baseline figure measured in the same run, their ratio and the verdict
 * against the goal. A figure is NaN when every run of its case failed.
 *
 * @param scenario what was measured
 * @param metric   the figure and its unit
 * @param jrdma    jrdma's figure
 * @param baseline what it is compared with
 * @param base     the baseline's figure
 * @param goal     the goal: for the ratio, or with {@code limit}
 * @param limit    {@link Goal#BELOW}'s bound, {@link Goal#WITHIN}'s margin, in the metric's unit; else NaN
 */
record Row(String scenario, String metric, double jrdma, String baseline, double base, Goal goal, double limit) {

    /** A row whose goal is about the ratio (or none). */
    Row(String scenario, String metric, double jrdma, String baseline, double base, Goal goal) {
        this(scenario, metric, jrdma, baseline, base, goal, Double.NaN);
    }

    /** What the ratio jrdma / baseline must be, or what jrdma's figure must be. */
    enum Goal {
        /** jrdma at least as high (bandwidth, rate). */
        AT_LEAST("\u2265 1.0"),
        /** jrdma at most as high (latency). */
        AT_MOST("\u2264 1.0"),
        /** jrdma below the row's limit, whatever the baseline (an idle device's CPU). */
        BELOW("< "),
        /** jrdma at most the baseline plus the row's margin (a latency that may cost a little more). */
        WITHIN("\u2264 base + "),
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

    /** The goal column: the ratio's goal, or the limit's. */
    String goalText() {
        return goal == Goal.BELOW || goal == Goal.WITHIN ? goal.text + plain(limit) : goal.text;
    }

    /** {@code v} without trailing zeros: 1, 50, 0.5. */
    static String plain(double v) {
        return Double.isFinite(v) ? BigDecimal.valueOf(v).stripTrailingZeros().toPlainString() : "?";
    }

    /** PASS or FAIL against the goal, "info" without one, ERROR when a figure it needs is missing. */
    String verdict() {
        if (goal == Goal.BELOW) {
            return !Double.isFinite(jrdma) || !Double.isFinite(limit) ? "ERROR" : jrdma < limit ? "PASS" : "FAIL";
        }
        if (goal == Goal.WITHIN) {
            return !Double.isFinite(jrdma) || !Double.isFinite(base) || !Double.isFinite(limit) ? "ERROR"
                    : jrdma <= base + limit ? "PASS" : "FAIL";
        }
        double r = ratio();
        if (Double.isNaN(r) || Double.isInfinite(r)) {
            return "ERROR";
        }
        return switch (goal) {
            case AT_LEAST -> r >= 1.0 ? "PASS" : "FAIL";
            case AT_MOST -> r <= 1.0 ? "PASS" : "FAIL";
            default -> "info";
        };
    }
}

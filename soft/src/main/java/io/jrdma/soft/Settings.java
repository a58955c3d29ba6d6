package io.jrdma.soft;

/**
 * Device settings given as a system property or, when the property is unset or blank, an environment variable
 * ({@code jrdma.capture} / {@code JRDMA_CAPTURE} and the like): the property wins so that a program can override
 * its environment.
 */
final class Settings {

    private Settings() {
    }

    /** The property's value, else the environment variable's, else null (blank counts as unset). */
    static String get(String property, String env) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? null : v.trim();
    }

    /** As {@link #get}, with a default. */
    static String get(String property, String env, String fallback) {
        String v = get(property, env);
        return v == null ? fallback : v;
    }

    /** A positive long setting; {@code fallback} when unset. */
    static long positiveLong(String property, String env, long fallback) {
        String v = get(property, env);
        if (v == null) {
            return fallback;
        }
        try {
            long n = Long.parseLong(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(property + " / " + env + " must be a positive number, not '" + v + "'");
    }

    /** True unless the setting is one of off, false, no, 0. */
    static boolean enabled(String property, String env) {
        return enabled(property, env, true);
    }

    /** {@code fallback} when unset; else true unless the setting is one of off, false, no, 0. */
    static boolean enabled(String property, String env, boolean fallback) {
        String v = get(property, env);
        if (v == null) {
            return fallback;
        }
        return !(v.equalsIgnoreCase("off") || v.equalsIgnoreCase("false") || v.equalsIgnoreCase("no")
                || v.equals("0"));
    }
}

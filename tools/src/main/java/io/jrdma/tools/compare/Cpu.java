package io.jrdma.tools.compare;

import java.lang.management.ManagementFactory;

/** The CPU time of this process, all threads (com.sun.management.OperatingSystemMXBean#getProcessCpuTime). */
final class Cpu {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private Cpu() {
    }

    /** Nanoseconds of CPU this process used so far, or -1 where the platform does not say. */
    static long processNs() {
        return OS.getProcessCpuTime();
    }
}

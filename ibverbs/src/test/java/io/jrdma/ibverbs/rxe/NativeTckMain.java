package io.jrdma.ibverbs.rxe;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the conformance suite and the zero-allocation check on a real device through the JUnit Platform Launcher
 * (inside an rxe-lab guest: scripts/native-rxe.sh), printing one line per test and then
 * "N passed, M failed, K skipped". Exit status 1 when a test failed that is not a {@link KnownDifferences known
 * difference} of the kernel's.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp ... io.jrdma.ibverbs.rxe.NativeTckMain [Class[#method] ...]
 * </pre>
 * Arguments select classes of this package by simple name ({@code IbvQpTck}) or single methods
 * ({@code IbvQpTck#createQpReportsItsCaps}); none runs everything.
 */
public final class NativeTckMain {

    /** Every class the runner runs by default, in this order. */
    static final List<Class<?>> ALL = List.of(IbvDeviceTck.class, IbvPdTck.class, IbvMrTck.class, IbvCqTck.class,
            IbvQpTck.class, IbvQpQueueTck.class, IbvSendRecvTck.class, IbvWriteTck.class, IbvReadTck.class,
            IbvAtomicTck.class, IbvUdTck.class, IbvUcTck.class, IbvSrqTck.class, IbvMwTck.class,
            IbvIsolationTck.class, IbvAsyncEventTck.class, NativeZeroAllocationTck.class, IbvCmTck.class);

    private NativeTckMain() {
    }

    /** Runs the selected tests; exits 0 when none failed (beyond the known differences). */
    public static void main(String[] args) throws Exception {
        List<DiscoverySelector> selectors = new ArrayList<>();
        if (args.length == 0) {
            ALL.forEach(c -> selectors.add(selectClass(c)));
        }
        for (String a : args) {
            String cls = NativeTckMain.class.getPackageName() + "." + a;
            selectors.add(a.contains("#") ? selectMethod(cls) : selectClass(Class.forName(cls)));
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
        Launcher launcher = LauncherFactory.create();
        Report report = new Report(System.out);
        launcher.execute(request, report);
        System.exit(report.print() ? 0 : 1);
    }

    /** Prints each test's outcome as it ends, then the totals. */
    static final class Report implements TestExecutionListener {
        private final PrintStream out;
        private final Map<String, Long> started = new TreeMap<>();
        private int passed;
        private int failed;
        private int skipped;
        private final List<String> differences = new ArrayList<>();
        private final List<String> failures = new ArrayList<>();

        Report(PrintStream out) {
            this.out = out;
        }

        private static String name(TestIdentifier id) {
            if (id.getSource().orElse(null) instanceof MethodSource m) {
                String cls = m.getClassName();
                return cls.substring(cls.lastIndexOf('.') + 1) + "#" + m.getMethodName();
            }
            return id.getDisplayName();
        }

        @Override
        public void executionStarted(TestIdentifier id) {
            if (id.isTest()) {
                started.put(id.getUniqueId(), System.nanoTime());
            }
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) {
                skipped++;
                out.println("SKIP " + name(id) + ": " + reason);
            }
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (!id.isTest()) {
                if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) { // a class failed to set up
                    failed++;
                    failures.add(id.getDisplayName());
                    out.println("FAIL " + id.getDisplayName() + ": " + result.getThrowable().map(String::valueOf)
                            .orElse("?"));
                }
                return;
            }
            long ms = (System.nanoTime() - started.getOrDefault(id.getUniqueId(), System.nanoTime())) / 1_000_000;
            String name = name(id);
            String known = KnownDifferences.reason(name);
            switch (result.getStatus()) {
                case SUCCESSFUL -> {
                    passed++;
                    out.println("PASS " + name + " (" + ms + " ms)" + (known != null
                            ? " [listed as a known difference, but passed]" : ""));
                }
                case ABORTED -> {
                    skipped++;
                    out.println("SKIP " + name + ": " + result.getThrowable().map(Throwable::getMessage).orElse(""));
                }
                case FAILED -> {
                    String why = result.getThrowable().map(String::valueOf).orElse("?");
                    if (known != null) {
                        skipped++;
                        differences.add(name);
                        out.println("DIFF " + name + " (" + ms + " ms): " + why);
                        out.println("     known difference: " + known);
                    } else {
                        failed++;
                        failures.add(name);
                        out.println("FAIL " + name + " (" + ms + " ms): " + why);
                        result.getThrowable().ifPresent(t -> {
                            StackTraceElement[] st = t.getStackTrace();
                            for (int i = 0; i < Math.min(8, st.length); i++) {
                                out.println("         at " + st[i]);
                            }
                        });
                    }
                }
                default -> throw new IllegalStateException(result.toString());
            }
        }

        /** Prints the totals; returns whether nothing failed. */
        boolean print() {
            if (!failures.isEmpty()) {
                out.println("failed: " + failures);
            }
            out.println("known kernel differences (counted as skipped): " + differences.size()
                    + (differences.isEmpty() ? "" : " " + differences));
            out.println(passed + " passed, " + failed + " failed, " + skipped + " skipped");
            return failed == 0;
        }
    }
}

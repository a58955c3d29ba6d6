/** The {@code jrdma} command line (picocli): devices, devinfo, link, stat, demo, perftest, pingpong, rping, bench, scale. */
@SuppressWarnings("requires-automatic") // io.aeron.all: aeron-all has no module-info, only an Automatic-Module-Name
module io.jrdma.tools {
    requires io.jrdma.soft;
    requires io.jrdma.cm;
    requires io.jrdma.examples;
    requires info.picocli;
    requires io.aeron.all;
    requires java.management;
    requires jdk.management;

    // picocli reads the @Command/@Option/@Parameters fields and methods of the command classes reflectively
    opens io.jrdma.tools to info.picocli;
    opens io.jrdma.tools.cmatose to info.picocli;
    opens io.jrdma.tools.compare to info.picocli;
    opens io.jrdma.tools.perftest to info.picocli;
    opens io.jrdma.tools.pingpong to info.picocli;
    opens io.jrdma.tools.rping to info.picocli;
    opens io.jrdma.tools.scale to info.picocli;
}

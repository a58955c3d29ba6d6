/** JMH benchmarks of the wire codecs and the soft device (run as target/benchmarks.jar, on the class path). */
@SuppressWarnings("requires-automatic")
module io.jrdma.bench {
    requires io.jrdma.soft;
    requires io.jrdma.examples;
    requires jmh.core;
}

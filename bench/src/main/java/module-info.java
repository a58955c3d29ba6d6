/** JMH benchmarks of the wire codecs and the soft device (run as target/benchmarks.jar, on the class path). */
@SuppressWarnings("requires-automatic") // jmh.core: jmh-core is an automatic module, named after its file
module io.jrdma.bench {
    requires io.jrdma.soft;
    requires io.jrdma.cm;
    requires io.jrdma.wire;
    requires io.jrdma.examples;
    requires jmh.core;
}

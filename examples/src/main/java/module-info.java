/** Example programs (hello verbs, the packet demo, throughput, non-contiguous transfers) and their helpers. */
@SuppressWarnings("module") // the qualified exports name modules built after this one
module io.jrdma.examples {
    requires transitive io.jrdma.soft;
    requires io.jrdma.wire;
    requires java.desktop;

    // helpers the tools and benchmarks share (RcPeer, QpConnect, DemoRun, ...); not an API of their own
    exports io.jrdma.examples to io.jrdma.tools, io.jrdma.bench;
    exports io.jrdma.examples.noncontig to io.jrdma.tools;
}

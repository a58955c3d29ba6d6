/**
 * The soft RoCEv2 device: a {@link io.jrdma.verbs.spi.Provider} whose transport engine runs in Java over UDP.
 * Its Linux UDP link calls libc through the FFM API: run with {@code --enable-native-access=io.jrdma.soft} on the
 * module path ({@code ALL-UNNAMED} on the class path).
 */
module io.jrdma.soft {
    requires transitive io.jrdma.verbs;
    requires transitive io.jrdma.cm;
    requires io.jrdma.wire;
    requires jdk.net;

    exports io.jrdma.soft;
    // FaultConfig is part of SoftDevice's API (fault injection); the tools use Link's flow-label helpers
    exports io.jrdma.soft.link;

    provides io.jrdma.verbs.spi.Provider with io.jrdma.soft.SoftProvider;
    provides io.jrdma.cm.spi.CmProvider with io.jrdma.soft.cm.SoftCmProvider;
}

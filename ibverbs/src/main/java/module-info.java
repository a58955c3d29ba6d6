/**
 * The native provider: the verbs API on the host's kernel RDMA devices, libibverbs.so.1 bound through the FFM API,
 * and the connection manager over librdmacm.so.1.
 * Found by service binding when an application requires {@code io.jrdma.verbs}; on the module path it needs
 * {@code --enable-native-access=io.jrdma.ibverbs}.
 */
module io.jrdma.ibverbs {
    requires transitive io.jrdma.verbs;
    requires io.jrdma.cm;

    provides io.jrdma.verbs.spi.Provider with io.jrdma.ibverbs.IbvProvider;
    provides io.jrdma.cm.spi.CmProvider with io.jrdma.ibverbs.IbvCmProvider;
}

/**
 * The connection manager API ({@code io.jrdma.cm}, librdmacm's model: event channels, CM ids, connect, listen,
 * accept, reject, disconnect) and its service-provider interface ({@code io.jrdma.cm.spi}): the soft provider
 * speaks the IBTA CM over QP1 itself, the native one calls librdmacm.
 */
module io.jrdma.cm {
    requires transitive io.jrdma.verbs;

    exports io.jrdma.cm;
    exports io.jrdma.cm.spi;

    uses io.jrdma.cm.spi.CmProvider;
}

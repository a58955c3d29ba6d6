/**
 * The verbs API ({@code io.jrdma.verbs}) and the service-provider interface ({@code io.jrdma.verbs.spi}) that
 * device providers implement; {@link io.jrdma.verbs.Verbs} finds the providers with {@link java.util.ServiceLoader}.
 */
module io.jrdma.verbs {
    exports io.jrdma.verbs;
    exports io.jrdma.verbs.spi;

    uses io.jrdma.verbs.spi.Provider;
}

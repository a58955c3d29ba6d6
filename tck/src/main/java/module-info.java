/**
 * The verbs TCK: JUnit 5 tests every provider must pass. A provider's test build subclasses the {@code *Tck}
 * classes and registers one {@link io.jrdma.tck.TckEnvironment}.
 */
module io.jrdma.tck {
    requires transitive io.jrdma.verbs;
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;

    exports io.jrdma.tck;
    // JUnit calls the (package-private) test methods of the abstract TCK classes reflectively
    opens io.jrdma.tck to org.junit.platform.commons;

    uses io.jrdma.tck.TckEnvironment;
}

package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Teardown order and failure handling of {@link Resources#closeAll}. */
class ResourcesTest {

    private final List<String> closed = new ArrayList<>();

    private AutoCloseable named(String name) {
        return () -> closed.add(name);
    }

    private AutoCloseable failing(String name, Exception e) {
        return () -> {
            closed.add(name);
            throw e;
        };
    }

    @Test
    void closesTheArrayFirstThenTheRestInOrderSkippingNulls() {
        AutoCloseable[] qps = {named("qp0"), null, named("qp2")};
        Resources.closeAll(qps, named("cq"), null, named("pd"), named("context"));
        assertEquals(List.of("qp0", "qp2", "cq", "pd", "context"), closed);

        closed.clear();
        Resources.closeAll((AutoCloseable[]) null, named("cq"), named("context"));
        assertEquals(List.of("cq", "context"), closed);

        closed.clear();
        Resources.closeAll(named("a"), named("b"));
        assertEquals(List.of("a", "b"), closed);
    }

    @Test
    void goesOnAfterAFailureAndThrowsTheFirstWithTheLaterSuppressed() {
        IllegalStateException first = new IllegalStateException("qp busy");
        IOException second = new IOException("pd in use");
        AutoCloseable[] qps = {failing("qp0", first), named("qp1")};
        RuntimeException thrown = assertThrows(RuntimeException.class,
                () -> Resources.closeAll(qps, failing("pd", second), named("context")));
        assertSame(first, thrown);
        assertEquals(1, thrown.getSuppressed().length);
        assertSame(second, thrown.getSuppressed()[0]);
        assertEquals(List.of("qp0", "qp1", "pd", "context"), closed);

        // a checked failure alone comes wrapped
        closed.clear();
        RuntimeException wrapped = assertThrows(RuntimeException.class,
                () -> Resources.closeAll(failing("mr", second), named("context")));
        assertTrue(wrapped instanceof IllegalStateException && wrapped.getCause() == second, wrapped.toString());
        assertEquals(List.of("mr", "context"), closed);
    }
}

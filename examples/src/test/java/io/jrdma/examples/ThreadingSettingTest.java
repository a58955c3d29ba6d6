package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code jrdma.threading} as the examples and tools that build their own devices read it. */
class ThreadingSettingTest {

    private String saved;

    @BeforeEach
    void save() {
        saved = System.getProperty(ThreadingSetting.PROPERTY);
        System.clearProperty(ThreadingSetting.PROPERTY);
    }

    @AfterEach
    void restore() {
        if (saved == null) {
            System.clearProperty(ThreadingSetting.PROPERTY);
        } else {
            System.setProperty(ThreadingSetting.PROPERTY, saved);
        }
    }

    @Test
    void shouldParseEveryModeInAnyCase() {
        assertEquals(Threading.ADAPTIVE, ThreadingSetting.parse("adaptive"));
        assertEquals(Threading.INVOKER, ThreadingSetting.parse("Invoker"));
        assertEquals(Threading.DEDICATED, ThreadingSetting.parse(" DEDICATED "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ThreadingSetting.parse("busy"));
        assertTrue(e.getMessage().contains("unknown threading 'busy' (jrdma.threading / JRDMA_THREADING): expected "
                + "adaptive, invoker or dedicated"), e.getMessage());
    }

    @Test
    void shouldKeepTheDevicesDefaultUnlessTheSettingNamesAMode() {
        assumeTrue(System.getenv(ThreadingSetting.ENV) == null, "JRDMA_THREADING is set in this environment");
        assertEquals(Optional.empty(), ThreadingSetting.setting());
        assertEquals(Threading.ADAPTIVE, ThreadingSetting.libraryDefault());
        assertEquals(Threading.ADAPTIVE, ThreadingSetting.orDefault());
        assertEquals(Threading.ADAPTIVE, device().threading());

        System.setProperty(ThreadingSetting.PROPERTY, " ");
        assertEquals(Optional.empty(), ThreadingSetting.setting(), "blank is unset");
        for (Threading t : Threading.values()) {
            System.setProperty(ThreadingSetting.PROPERTY, t.name().toLowerCase(java.util.Locale.ROOT));
            assertEquals(Optional.of(t), ThreadingSetting.setting());
            assertEquals(t, ThreadingSetting.orDefault());
            assertEquals(t, device().threading());
        }
        System.setProperty(ThreadingSetting.PROPERTY, "spin");
        assertThrows(IllegalArgumentException.class, ThreadingSetting::orDefault);
    }

    private static SoftDevice device() {
        return ThreadingSetting.apply(SoftDevice.builder().name("probe").address("127.0.149.1")).build();
    }
}

package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrdma.verbs.Gid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EndpointTest {

    @Test
    void shouldRoundTripTextForm() {
        Endpoint e = new Endpoint(0, 0x11, 0xABCDEF, Gid.parse("::ffff:127.0.0.2"), 0x8000_0150,
                0x0000_7f12_3456_7000L);
        String text = e.encode();
        assertEquals("0000:000011:abcdef:00000000000000000000ffff7f000002:80000150:00007f1234567000", text);
        assertEquals(e, Endpoint.parse(text));
        assertEquals(e, Endpoint.parse(text + "\r\n"));
    }

    @Test
    void shouldRoundTripExtremeValues() {
        Endpoint e = new Endpoint(0xFFFF, 0xFFFFFF, 0xFFFFFF, Gid.parse("fe80::1"), -1, -1L);
        assertEquals(e, Endpoint.parse(e.encode()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0000:000011:abcdef", "0000:000011:abcdef:00:80000150:00007f1234567000",
        "0000:000011:abcdef:00000000000000000000ffff7f000002:80000150:00007f1234567000:00",
        "0000:00001g:abcdef:00000000000000000000ffff7f000002:80000150:00007f1234567000",
        "0000:1000000:abcdef:00000000000000000000ffff7f000002:80000150:00007f1234567000"})
    void shouldRejectMalformedTextBadFlow(String text) {
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse(text));
    }

    @Test
    void shouldRejectOutOfRangeFieldsBadFlow() {
        assertThrows(IllegalArgumentException.class, () -> new Endpoint(0, 1 << 24, 0, Gid.ZERO, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Endpoint(0, 0, -1, Gid.ZERO, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Endpoint(1 << 16, 0, 0, Gid.ZERO, 0, 0));
    }
}

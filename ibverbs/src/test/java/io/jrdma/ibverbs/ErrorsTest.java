package io.jrdma.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;

/** libibverbs errnos as VerbsExceptions, and the memlock advice of a refused ibv_reg_mr. */
class ErrorsTest {

    @Test
    void shouldMapListedErrnosAndReportOthersAsEinvalWithTheirText() {
        VerbsException busy = Errors.of(16, "ibv_dealloc_pd");
        assertEquals(Errno.EBUSY, busy.errno());
        assertEquals("EBUSY: ibv_dealloc_pd failed: Device or resource busy", busy.getMessage());
        VerbsException unreachable = Errors.of(101, "rdma_resolve_addr");
        assertEquals(Errno.ENETUNREACH, unreachable.errno(), "listed since the CM's socket errnos");
        VerbsException proto = Errors.of(71, "ibv_create_ah");
        assertEquals(Errno.EINVAL, proto.errno());
        assertEquals("EINVAL: ibv_create_ah failed with errno 71 (Protocol error), reported as EINVAL",
                proto.getMessage());
        VerbsException full = Errors.of(12, 3, "ibv_post_send", "the send queue is full");
        assertEquals(3, full.badWrIndex());
        assertEquals("ENOMEM: ibv_post_send failed: Cannot allocate memory — the send queue is full (work request #3)",
                full.getMessage());
    }

    @Test
    void shouldExplainTheMemlockLimitWhenPinningFails() {
        for (int code : new int[] {Errno.ENOMEM.code(), Errno.EPERM.code()}) {
            VerbsException e = Errors.regMr(code, 0x7f0000001000L, 1 << 30);
            assertEquals(Errno.of(code), e.errno());
            assertTrue(e.getMessage().startsWith(Errno.of(code).name() + ": ibv_reg_mr(addr=0x7f0000001000, "
                    + "length=1073741824) failed: " + Errno.of(code).description() + " — the locked-memory limit is "
                    + "likely too low to pin 1073741824 bytes (ulimit -l: "), e::getMessage);
            assertTrue(e.getMessage().contains("`ulimit -l unlimited`"), e::getMessage);
            assertTrue(e.getMessage().contains("LimitMEMLOCK=infinity"), e::getMessage);
        }
        VerbsException other = Errors.regMr(Errno.EINVAL.code(), 0x1000, 4096);
        assertFalse(other.getMessage().contains("ulimit"), other::getMessage);
    }

    @Test
    void shouldReadTheMemlockLimit() {
        long limit = Libc.memlockLimit();
        assertTrue(limit == -1 || limit >= 0, "RLIMIT_MEMLOCK " + limit);
    }
}

package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which solved IPv4 IDs the engine accepts from a source (the rules in {@link IpIdPolicy}). */
class IpIdPolicyTest {

    private static final long SOURCE = IpIdPolicy.key(0x7F000001, 0xC123);

    @Test
    void shouldAcceptAnyIdFromAnUnknownSource() {
        IpIdPolicy p = new IpIdPolicy();
        assertTrue(p.acceptSolved(0, SOURCE, 40_000));
    }

    @Test
    void shouldAcceptOnlyGsoSegmentIdsFromASourceKnownToSendZero() {
        IpIdPolicy p = new IpIdPolicy();
        p.verifiedWithZero(0, SOURCE);
        p.verifiedWithZero(0, SOURCE);
        assertTrue(p.acceptSolved(0, SOURCE, 1), "segment 1 of a GSO run received without GRO");
        assertTrue(p.acceptSolved(0, SOURCE, IpIdPolicy.GSO_RUN - 1));
        assertFalse(p.acceptSolved(0, SOURCE, IpIdPolicy.GSO_RUN), "no run has that many segments: corrupt");
        assertFalse(p.acceptSolved(0, SOURCE, 40_000));
    }
}

package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.wire.Psn;
import java.io.IOException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ICRC check at the receiver, made to happen by crafted packets. Run on native sockets here and on NIO
 * channels in {@link ReliabilityIcrcNioTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReliabilityIcrcTest extends ReliabilityRulesBase {

    @Test
    void shouldNotSolveForAnIpIdFromASourceKnownToSendZeroRegression() throws IOException {
        // regression: any packet whose ICRC matched under some IPv4 ID was accepted, so a corrupted packet from a
        // jrdma sender passed with probability 2^-16
        try (FaultPair pair = pair(link(), FaultConfig.NONE, FaultConfig.NONE);
             DatagramChannel from = FaultPair.injector(A);
             DatagramChannel other = FaultPair.injector(A)) {
            int e = soft(pair.b).responder.expectedPsn();
            byte[] dup = sendOnly(pair.b.qp.qpNum(), Psn.add(e, -1)); // a duplicate: re-ACKed, changes nothing
            Runnable drive = () -> {
                for (int i = 0; i < 5; i++) {
                    pair.b.ctx.progress();
                }
            };
            FaultPair.inject(from, B, dup, 0x1234);
            pair.until("first", () -> pair.count(pair.b, Counter.DUPLICATE_REQUEST) == 1);
            assertEquals(1, pair.count(pair.b, Counter.ICRC_ID_SOLVED), "an unknown source may use any ID");
            FaultPair.inject(from, B, dup, 0);
            FaultPair.inject(from, B, dup, 0);
            pair.until("two with ID 0", () -> pair.count(pair.b, Counter.DUPLICATE_REQUEST) == 3);
            for (int i = 1; i <= 7; i++) {
                FaultPair.inject(from, B, dup, 0x1234); // what a corruption in the ID's span looks like
                int n = i;
                pair.until("rejected " + i, () -> pair.count(pair.b, Counter.ICRC_ERR) == n);
            }
            drive.run();
            assertEquals(3, pair.count(pair.b, Counter.DUPLICATE_REQUEST), "none delivered");
            assertEquals(1, pair.count(pair.b, Counter.ICRC_ID_SOLVED));
            FaultPair.inject(from, B, dup, 0x1234); // the eighth in a row: the source really changed
            pair.until("accepted", () -> pair.count(pair.b, Counter.DUPLICATE_REQUEST) == 4);
            assertEquals(2, pair.count(pair.b, Counter.ICRC_ID_SOLVED));
            FaultPair.inject(other, B, dup, 0x4321); // another source starts unknown
            pair.until("other source", () -> pair.count(pair.b, Counter.DUPLICATE_REQUEST) == 5);
            assertEquals(7, pair.count(pair.b, Counter.ICRC_ERR));
        }
    }
}

package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Opcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every fault the link can inject against every RC operation: 40 messages (three packets each, or one atomic)
 * between two devices that both damage what they send. Each case checks that every byte arrived intact and
 * exactly once, that every WR completed exactly once with the right status, opcode and length, and the counters
 * that show the recovery path ran (sequence NAKs, timeouts, retransmissions, duplicates, ICRC errors). Timers fire
 * by stepping a manual clock. PSNs start 64 before the 24-bit wrap, so recovery also crosses it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FaultInjectionTest {

    private static final String A = "127.0.41.1";
    private static final String B = "127.0.41.2";
    private static final int ACCESS = Peer.ALL_ACCESS | Access.REMOTE_ATOMIC;
    private static final int MESSAGES = 40;
    private static final int SLOT = 4096;
    private static final int BYTES = 2500; // three packets at MTU 1024
    private static final long RESULTS = (long) MESSAGES * SLOT;
    private static final int TIMEOUT = 10; // 4.096 us * 2^10 = 4.2 ms
    private static final int PSN0 = 0xFFFFC0;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    enum Fault { DROP, DROP_PSN, DROP_OPCODE, DUPLICATE, REORDER, DELAY, CORRUPT, DROP_ACKS }

    enum Op {
        SEND(WrOpcode.SEND), SEND_WITH_IMM(WrOpcode.SEND_WITH_IMM), WRITE(WrOpcode.RDMA_WRITE),
        WRITE_WITH_IMM(WrOpcode.RDMA_WRITE_WITH_IMM), READ(WrOpcode.RDMA_READ),
        CMP_SWAP(WrOpcode.ATOMIC_CMP_AND_SWP), FETCH_ADD(WrOpcode.ATOMIC_FETCH_AND_ADD);

        final WrOpcode wr;

        Op(WrOpcode wr) {
            this.wr = wr;
        }

        boolean atomic() {
            return wr.isAtomic();
        }

        boolean consumesReceive() {
            return this == SEND || this == SEND_WITH_IMM || this == WRITE_WITH_IMM;
        }

        /** PSNs per message. */
        int packets() {
            return atomic() ? 1 : 3;
        }
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (LinkKind kind : LinkKind.values()) {
            for (Fault f : Fault.values()) {
                for (Op op : Op.values()) {
                    out.add(Arguments.of(f, op, kind));
                }
            }
        }
        return out.stream();
    }

    private static Peer.Link link() {
        Peer.Link l = new Peer.Link();
        l.psn = PSN0;
        l.timeout = TIMEOUT;
        l.qpAccess |= Access.REMOTE_ATOMIC;
        return l;
    }

    /** The faults of the requester's device (a) and the responder's device (b) for one case. */
    private static FaultConfig[] faults(Fault f, Op op) {
        long base = Long.getLong("jrdma.faults.seedBase", 0); // explore other fault patterns: -Djrdma.faults.seedBase=N
        FaultConfig.Builder a = FaultConfig.builder().seed(base + 1000 + f.ordinal() * 10 + op.ordinal());
        FaultConfig.Builder b = FaultConfig.builder().seed(base + 2000 + f.ordinal() * 10 + op.ordinal());
        int p = op.packets();
        switch (f) {
            case DROP -> {
                a.drop(0.15);
                b.drop(0.15);
            }
            case DROP_PSN -> {
                // a middle packet of message 0, the first of message 5, the last of message 30 (past the wrap)
                int[] psns = {psn(1), psn(5 * p), psn(30 * p + p - 1)};
                a.dropPsns(psns);
                b.dropPsns(psns);
            }
            case DROP_OPCODE -> {
                a.dropOpcodes(requestOpcode(op)).times(2);
                b.dropOpcodes(responseOpcode(op)).times(2);
            }
            case DUPLICATE -> {
                a.duplicate(0.25);
                b.duplicate(0.25);
            }
            case REORDER -> {
                a.reorder(0.25, 4);
                b.reorder(0.25, 4);
            }
            case DELAY -> {
                long twoTimeouts = 2 * Requester.ackTimeoutNs(TIMEOUT);
                a.delay(0.25, twoTimeouts);
                b.delay(0.1, twoTimeouts);
            }
            case CORRUPT -> {
                a.corrupt(0.1);
                b.corrupt(0.1);
            }
            case DROP_ACKS -> b.dropAcks(0.3);
        }
        return new FaultConfig[] {a.build(), b.build()};
    }

    private static int psn(int offset) {
        return (PSN0 + offset) & 0xFFFFFF;
    }

    /** A request opcode of {@code op} that occurs in every message. */
    private static int requestOpcode(Op op) {
        return switch (op) {
            case SEND -> Opcode.RC_SEND_MIDDLE.code();
            case SEND_WITH_IMM -> Opcode.RC_SEND_LAST_WITH_IMMEDIATE.code();
            case WRITE -> Opcode.RC_RDMA_WRITE_FIRST.code();
            case WRITE_WITH_IMM -> Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE.code();
            case READ -> Opcode.RC_RDMA_READ_REQUEST.code();
            case CMP_SWAP -> Opcode.RC_COMPARE_SWAP.code();
            case FETCH_ADD -> Opcode.RC_FETCH_ADD.code();
        };
    }

    /** A response opcode the responder sends for {@code op}. */
    private static int responseOpcode(Op op) {
        return switch (op) {
            case READ -> Opcode.RC_RDMA_READ_RESPONSE_MIDDLE.code();
            case CMP_SWAP, FETCH_ADD -> Opcode.RC_ATOMIC_ACKNOWLEDGE.code();
            default -> Opcode.RC_ACKNOWLEDGE.code();
        };
    }

    @ParameterizedTest(name = "{0} x {1} on {2}")
    @MethodSource("cases")
    void shouldDeliverEveryByteExactlyOnceUnderFaults(Fault fault, Op op, LinkKind kind) {
        FaultConfig[] faults = faults(fault, op);
        try (FaultPair pair = new FaultPair(A, B, 2 * RESULTS, ACCESS, link(), faults[0], faults[1],
                kind.assume())) {
            Peer a = pair.a;
            Peer b = pair.b;
            Random random = new Random(fault.ordinal() * 31L + op.ordinal());
            fill(a.buf, random);
            fill(b.buf, random);
            b.buf.set(U64, 0, 0L); // the atomics' target
            if (op.consumesReceive()) {
                for (int i = 0; i < MESSAGES; i++) {
                    b.qp.postRecv(new RecvWr().wrId(1000 + i).sg(new Sge(b.addr((long) i * SLOT), SLOT, b.mr.lkey())));
                }
            }
            // ACKs coalesce: with everything posted at once a responder sends a handful; one message at a time
            // makes each acknowledged on its own, so dropping ACKs has something to hit
            int wave = fault == Fault.DROP_ACKS ? 1 : MESSAGES;
            List<WorkCompletion> sent = new ArrayList<>();
            for (int first = 0; first < MESSAGES; first += wave) {
                for (int i = first; i < first + wave; i++) {
                    a.qp.postSend(request(op, i, a, b));
                }
                sent.addAll(pair.completions(a.cq, wave));
                WorkCompletion last = sent.getLast();
                assertEquals(WcStatus.SUCCESS, last.status(), () -> last + "\n" + fault + " x " + op + "\n"
                        + pair.counters());
            }
            List<WorkCompletion> received = op.consumesReceive() ? pair.completions(b.cq, MESSAGES) : List.of();
            pair.settle(8 * Requester.ackTimeoutNs(TIMEOUT)); // late and duplicated packets land, held ones go out
            String why = fault + " x " + op + " on " + kind + "\n" + pair.counters();

            for (int i = 0; i < MESSAGES; i++) {
                WorkCompletion wc = sent.get(i);
                assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + "\n" + why);
                assertEquals(i, wc.wrId(), "completions in order, each once");
                assertEquals(op.wr.completionOpcode(), wc.opcode());
                assertEquals(op.atomic() ? 8 : length(i), wc.byteLen());
            }
            for (int i = 0; i < received.size(); i++) {
                WorkCompletion wc = received.get(i);
                assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + "\n" + why);
                assertEquals(1000 + i, wc.wrId());
                assertEquals(length(i), wc.byteLen());
                assertEquals(op == Op.WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, wc.opcode());
                if (op == Op.SEND) {
                    assertEquals(0, wc.wcFlags() & WcFlags.WITH_IMM);
                } else {
                    assertEquals(0x5000 + i, wc.immData());
                }
            }
            checkData(op, a, b, why);
            pair.assertQuiet();
            checkRecovery(fault, op, pair, why);
        }
    }

    private static int length(int i) {
        return BYTES + 7 * i;
    }

    private static SendWr request(Op op, int i, Peer a, Peer b) {
        long off = (long) i * SLOT;
        SendWr wr = new SendWr().wrId(i).opcode(op.wr).sendFlags(SendFlags.SIGNALED);
        switch (op) {
            case SEND, SEND_WITH_IMM -> wr.sg(new Sge(a.addr(off), length(i), a.mr.lkey())).immData(0x5000 + i);
            case WRITE, WRITE_WITH_IMM, READ -> wr.sg(new Sge(a.addr(off), length(i), a.mr.lkey()))
                    .remoteAddr(b.addr(off)).rkey(b.mr.rkey()).immData(0x5000 + i);
            case CMP_SWAP -> wr.sg(new Sge(a.addr(RESULTS + 8L * i), 8, a.mr.lkey())).remoteAddr(b.addr(0))
                    .rkey(b.mr.rkey()).compareAdd(i).swap(i + 1);
            case FETCH_ADD -> wr.sg(new Sge(a.addr(RESULTS + 8L * i), 8, a.mr.lkey())).remoteAddr(b.addr(0))
                    .rkey(b.mr.rkey()).compareAdd(i + 1);
        }
        return wr;
    }

    /** The bytes arrived intact; an atomic ran exactly once (a second run would change the values seen). */
    private static void checkData(Op op, Peer a, Peer b, String why) {
        switch (op) {
            case SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ -> {
                for (int i = 0; i < MESSAGES; i++) {
                    long off = (long) i * SLOT;
                    long mismatch = a.buf.asSlice(off, length(i)).mismatch(b.buf.asSlice(off, length(i)));
                    assertEquals(-1, mismatch, "message " + i + " differs at byte " + mismatch + "\n" + why);
                }
            }
            case CMP_SWAP -> {
                for (int i = 0; i < MESSAGES; i++) {
                    assertEquals(i, a.buf.get(U64, RESULTS + 8L * i), "original value of CAS " + i + "\n" + why);
                }
                assertEquals(MESSAGES, b.buf.get(U64, 0), why);
            }
            case FETCH_ADD -> {
                for (int i = 0; i < MESSAGES; i++) {
                    assertEquals((long) i * (i + 1) / 2, a.buf.get(U64, RESULTS + 8L * i), "FETCH_ADD " + i + "\n"
                            + why);
                }
                assertEquals((long) MESSAGES * (MESSAGES + 1) / 2, b.buf.get(U64, 0), why);
            }
        }
    }

    /** The counters that show the fault was met and the recovery path for it ran. */
    private static void checkRecovery(Fault fault, Op op, FaultPair pair, String why) {
        Peer a = pair.a;
        Peer b = pair.b;
        long dropped = pair.count(a, Counter.FAULT_DROPPED) + pair.count(b, Counter.FAULT_DROPPED);
        long retransmitted = pair.count(a, Counter.RETRANSMITTED_PKTS);
        long goBackN = pair.count(a, Counter.RCVD_SEQ_ERR) + pair.count(a, Counter.COMPLETER_RETRY_ERR);
        switch (fault) {
            case DROP, DROP_PSN -> {
                assertTrue(dropped >= (fault == Fault.DROP ? 5 : 2), "packets dropped: " + dropped + "\n" + why);
                assertTrue(retransmitted > 0 && goBackN > 0, "dropped packets were sent again\n" + why);
            }
            case DROP_OPCODE -> {
                assertEquals(2, pair.count(a, Counter.FAULT_DROPPED), "the first two " + op + " requests\n" + why);
                assertTrue(retransmitted > 0 && goBackN > 0, why);
            }
            case DUPLICATE -> {
                assertTrue(pair.count(a, Counter.FAULT_DUPLICATED) > 0, why);
                assertTrue(pair.count(b, Counter.DUPLICATE_REQUEST) > 0, "the responder saw duplicates\n" + why);
            }
            case REORDER -> {
                assertTrue(pair.count(a, Counter.FAULT_REORDERED) + pair.count(b, Counter.FAULT_REORDERED) > 0);
                if (op == Op.READ || op.atomic()) {
                    // responses overtaken: the requester saw a later one first (implied NAK) and asked again
                    assertTrue(retransmitted > 0, "the requester went back\n" + why);
                } else {
                    assertTrue(pair.count(b, Counter.OUT_OF_SEQ_REQUEST) > 0, "requests overtaken\n" + why);
                    assertTrue(goBackN > 0 && retransmitted > 0, why);
                }
            }
            case DELAY -> {
                assertTrue(pair.count(a, Counter.FAULT_DELAYED) > 0, why);
                // overtaken by later packets (sequence NAK) or held past the ACK timeout: either way sent again
                assertTrue(goBackN > 0 && retransmitted > 0, "the delayed packets were sent again\n" + why);
                assertTrue(pair.count(b, Counter.DUPLICATE_REQUEST) > 0, "late originals are duplicates\n" + why);
            }
            case CORRUPT -> {
                long corrupted = pair.count(a, Counter.FAULT_CORRUPTED) + pair.count(b, Counter.FAULT_CORRUPTED);
                long rejected = pair.count(a, Counter.ICRC_ERR) + pair.count(b, Counter.ICRC_ERR)
                        + pair.count(a, Counter.RCVD_DROPPED) + pair.count(b, Counter.RCVD_DROPPED);
                assertTrue(corrupted > 0 && pair.count(a, Counter.ICRC_ERR) + pair.count(b, Counter.ICRC_ERR) > 0,
                        why);
                assertTrue(rejected >= corrupted, "every corrupted packet was dropped\n" + why);
                assertEquals(0, pair.count(a, Counter.ICRC_ID_SOLVED) + pair.count(b, Counter.ICRC_ID_SOLVED),
                        "no corrupted packet passed under a solved IPv4 ID\n" + why);
                assertTrue(retransmitted > 0, why);
            }
            case DROP_ACKS -> {
                if (op == Op.READ) {
                    assertEquals(0, dropped, "a READ is answered by read responses, never by an ACKNOWLEDGE");
                } else {
                    assertTrue(pair.count(b, Counter.FAULT_DROPPED) > 0, why);
                    assertEquals(0, pair.count(a, Counter.FAULT_DROPPED));
                    if (op.atomic()) {
                        // each atomic's result is only in its own acknowledge: a lost one is asked for again and
                        // answered from the responder's resource without running the atomic twice
                        assertTrue(pair.count(b, Counter.DUPLICATE_REQUEST) > 0 && retransmitted > 0, why);
                    }
                    if (pair.count(a, Counter.COMPLETER_RETRY_ERR) > 0) {
                        assertTrue(pair.count(b, Counter.DUPLICATE_REQUEST) > 0, "re-sent requests re-ACKed\n" + why);
                    }
                }
            }
        }
    }

    private static void fill(MemorySegment s, Random r) {
        byte[] chunk = new byte[4096];
        for (long off = 0; off < s.byteSize(); off += chunk.length) {
            r.nextBytes(chunk);
            MemorySegment.copy(chunk, 0, s, ValueLayout.JAVA_BYTE, off, (int) Math.min(chunk.length,
                    s.byteSize() - off));
        }
    }

    // ------------------------------------------------------------------------------------------------- device

    @Test
    void shouldTakeFaultsFromTheSystemPropertyWhenTheBuilderSetsNone() {
        String before = System.getProperty(FaultConfig.PROPERTY);
        try {
            System.setProperty(FaultConfig.PROPERTY, "seed=9,drop=0.5");
            SoftDevice d = SoftDevice.builder().address(A).build();
            assertEquals(FaultConfig.parse("seed=9,drop=0.5"), d.faults());
            assertTrue(d.toString().contains("faults seed=9"), d.toString());
            assertEquals(FaultConfig.NONE, SoftDevice.builder().address(A).faults(FaultConfig.NONE).build().faults(),
                    "the builder's choice wins");
            System.setProperty(FaultConfig.PROPERTY, "drop=2");
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> SoftDevice.builder().address(A).build());
            assertTrue(e.getMessage().startsWith(FaultConfig.PROPERTY), e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty(FaultConfig.PROPERTY);
            } else {
                System.setProperty(FaultConfig.PROPERTY, before);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(LinkKind.class)
    void shouldCountNothingAndUseAPlainLinkWithoutFaults(LinkKind kind) {
        try (FaultPair pair = new FaultPair(A, B, 1 << 16, ACCESS, link(), FaultConfig.NONE, FaultConfig.NONE,
                kind.assume())) {
            assertEquals(kind.linkClass(), pair.a.ctx.link.getClass());
            pair.a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(pair.a.addr(0), 5000, pair.a.mr.lkey())).remoteAddr(pair.b.addr(0))
                    .rkey(pair.b.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, pair.completion(pair.a.cq).status());
            for (Counter c : new Counter[] {Counter.FAULT_DROPPED, Counter.FAULT_DUPLICATED, Counter.FAULT_REORDERED,
                Counter.FAULT_DELAYED, Counter.FAULT_CORRUPTED, Counter.RETRANSMITTED_PKTS}) {
                assertEquals(0, pair.count(pair.a, c) + pair.count(pair.b, c), c.rxeName());
            }
        }
    }
}

package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.WorkCompletion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Two connected peers on two loopback addresses, and bounded waits that drive both engines. */
final class Pair implements AutoCloseable {

    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);

    final Peer a;
    final Peer b;

    Pair(String ipA, String ipB, Threading threading, NanoClock clock, long bufBytes, int access, QpCap cap,
            Peer.Link link) {
        a = new Peer(ipA, threading, clock, bufBytes, access, cap);
        Peer pb;
        try {
            pb = new Peer(ipB, threading, clock, bufBytes, access, cap);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        b = pb;
        a.connect(b, link);
        b.connect(a, link);
    }

    /** Peers whose devices run on links of {@code kind}. */
    Pair(String ipA, String ipB, Threading threading, LinkKind kind, long bufBytes) {
        a = new Peer(ipA, threading, NanoClock.SYSTEM, bufBytes, Peer.ALL_ACCESS, Peer.defaultCap(), kind);
        Peer pb;
        try {
            pb = new Peer(ipB, threading, NanoClock.SYSTEM, bufBytes, Peer.ALL_ACCESS, Peer.defaultCap(), kind);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        b = pb;
        Peer.Link link = new Peer.Link();
        a.connect(b, link);
        b.connect(a, link);
    }

    static Pair invoker(String ipA, String ipB, long bufBytes) {
        return new Pair(ipA, ipB, Threading.INVOKER, NanoClock.SYSTEM, bufBytes, Peer.ALL_ACCESS,
                Peer.defaultCap(), new Peer.Link());
    }

    void drive() {
        a.ctx.progress();
        b.ctx.progress();
    }

    /** Polls {@code cq} until one completion arrives (driving both engines), failing after {@link #WAIT_NS}. */
    WorkCompletion await(CompletionQueue cq) {
        return awaitN(cq, 1).getFirst();
    }

    List<WorkCompletion> awaitN(CompletionQueue cq, int n) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT_NS;
        while (out.size() < n) {
            drive();
            if (cq.poll(wcs) == 1) {
                WorkCompletion copy = new WorkCompletion();
                copy.copyFrom(wcs[0]);
                out.add(copy);
            } else if (System.nanoTime() > deadline) {
                fail("timed out waiting for completion " + (out.size() + 1) + " of " + n + "; got " + out);
            }
        }
        return out;
    }

    /** Drives both engines for a while and asserts that {@code cq} produced nothing. */
    void assertNoCompletion(CompletionQueue cq, long forNs) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long end = System.nanoTime() + forNs;
        while (System.nanoTime() < end) {
            drive();
            if (cq.poll(wcs) > 0) {
                fail("unexpected completion " + wcs[0]);
            }
        }
    }

    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }
}

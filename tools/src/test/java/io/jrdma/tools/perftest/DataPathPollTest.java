package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.tools.FakeNic;
import io.jrdma.tools.perftest.Exchange.Dest;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QueuePair;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A wait's empty polls: a completion queue's poll drives a soft device itself, so the loop does not drive it a second
 * time ({@code Context.progress()}) after each; a wait that polls no queue (a WRITE latency's look at memory) does.
 */
class DataPathPollTest {

    private final AtomicInteger progress = new AtomicInteger();
    private final AtomicInteger polls = new AtomicInteger();

    @Test
    void aCompletionQueuesEmptyPollsDriveTheDeviceOnceEach() throws Exception {
        CompletionQueue cq = answeringAfter(100);
        DataPath d = dataPath(cq);
        assertEquals(1, d.poll(cq, 1, "waiting for a receive"));
        assertEquals(101, polls.get(), "100 empty polls, then the completion");
        assertEquals(0, progress.get(), "no second pass after a poll that drove the device");
        d.idle("waiting for the peer's next write");
        assertEquals(1, progress.get(), "a wait that polls no queue drives the device");
    }

    private DataPath dataPath(CompletionQueue cq) {
        Device nic = FakeNic.context("rxe0").device();
        Context ctx = (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "device" -> nic;
                    case "progress" -> progress.incrementAndGet();
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        Options o = Options.parse(Tool.IB_SEND_LAT, new String[] {"-s", "2", "-n", "50"});
        return new DataPath(o, System.out, new DataPath.Resources(ctx, null, null, null, cq, cq, new QueuePair[0]),
                new DataPath.Layout(1, 1, 1, 4096, 4096, 64), null, new Dest[0], false);
    }

    /** A queue whose first {@code empty} polls find nothing and the next one completion. */
    private CompletionQueue answeringAfter(int empty) {
        return (CompletionQueue) Proxy.newProxyInstance(CompletionQueue.class.getClassLoader(),
                new Class<?>[] {CompletionQueue.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "poll" -> polls.incrementAndGet() > empty ? 1 : 0;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }
}

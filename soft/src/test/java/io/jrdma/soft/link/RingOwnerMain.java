package io.jrdma.soft.link;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The other process of {@link PeerDoorbellTest}: a shared-memory link at {@code args[1]}:4791 with its ring in
 * {@code args[0]}. It prints {@code ready}, sleeps on its link until something ends the wait (at most 10 s), takes
 * in what came for a second, and prints {@code woke <ns> records <n> wakeups <n>}: how long it slept, the records
 * its ring gave and the wake-up datagrams its socket held.
 */
public final class RingOwnerMain {

    private RingOwnerMain() {
    }

    public static void main(String[] args) throws Exception {
        try (Link link = ShmLink.over(Link.open(InetAddress.getByName(args[1]), Link.ROCE_PORT, true),
                Path.of(args[0]), true)) {
            if (!(link instanceof ShmLink)) {
                System.out.println("no shared-memory path");
                return;
            }
            ByteBuffer[] rx = new ByteBuffer[Link.RX_BATCH];
            for (int i = 0; i < rx.length; i++) {
                rx[i] = ByteBuffer.allocateDirect(65536);
            }
            System.out.println("ready");
            System.out.flush();
            long t0 = System.nanoTime();
            link.await(10_000);
            long slept = System.nanoTime() - t0;
            int records = 0;
            int wakeups = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (System.nanoTime() < end) {
                int got = link.receiveBatch(rx, rx.length);
                for (int i = 0; i < got; i++) {
                    if (link.isWakeUp(i)) {
                        wakeups++;
                    } else {
                        records++;
                    }
                }
                Thread.sleep(got == 0 ? 10 : 0);
            }
            System.out.println("woke " + slept + " records " + records + " wakeups " + wakeups);
        }
    }
}

package io.jrdma.tools;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.VerbsException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A second soft device for a round of a {@link Rehearsal}: the same settings as the tool's device (threading, shared
 * memory, faults) on another loopback address (a new one each round), so that the rehearsal's two sides talk device
 * to device as the measured run will. Rehearsed on one device, each packet went from the device to itself: its own
 * ring, its own doorbells, one peer. The measured run then took branches the compiled code had never seen (a second
 * peer, a doorbell from another address), and its first iterations ran deoptimised code while the compiler threads,
 * recompiling, took the cores of the two spinning processes (default {@code ib_send_lat}, 1,000 iterations:
 * milliseconds-long stalls inside the run). Only for a device on a loopback address: elsewhere there is no second
 * address to take, and the rehearsal stays on the one device.
 */
final class RehearsalTwin implements AutoCloseable {

    /** Addresses tried (127.254.x.y) before the rehearsal stays on one device. */
    private static final int ATTEMPTS = 4;
    /** How many 127.254.x.y addresses there are to take (y from 1 to 254). */
    private static final int ADDRESSES = 256 * 254;
    /** The next one to try: consecutive from a random start, so that the rounds of one process never repeat one. */
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(ADDRESSES));

    private final Context context;

    private RehearsalTwin(Context context) {
        this.context = context;
    }

    /** A twin of {@code ctx}'s device, open; null when the device is not a soft one on loopback or none can open. */
    static RehearsalTwin of(Context ctx) {
        if (!(ctx.device() instanceof SoftDevice dev) || !dev.address().isLoopbackAddress()
                || dev.address().getAddress().length != 4) {
            return null;
        }
        for (int i = 0; i < ATTEMPTS; i++) {
            int n = Math.floorMod(NEXT.getAndIncrement(), ADDRESSES);
            byte[] a = {127, (byte) 254, (byte) (n / 254), (byte) (1 + n % 254)};
            try {
                SoftDevice twin = SoftDevice.builder().name(dev.name()).address(InetAddress.getByAddress(a))
                        .threading(dev.threading()).sharedMemory(dev.sharedMemory()).faults(dev.faults()).build();
                return new RehearsalTwin(twin.open());
            } catch (VerbsException | UnknownHostException e) {
                // that address is taken (another process's twin): try another
            }
        }
        return null;
    }

    /** The twin's open context. */
    Context context() {
        return context;
    }

    /** Closes the twin; one a failed rehearsal left resources on stays open until the process ends (it is idle). */
    @Override
    public void close() {
        try {
            context.close();
        } catch (RuntimeException e) {
            // a side that failed did not release its QPs: the rehearsal is dropped without a word, as its failure
        }
    }
}

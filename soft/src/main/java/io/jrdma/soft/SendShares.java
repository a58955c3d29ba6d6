package io.jrdma.soft;

/**
 * How many packets the device's RC requesters may have unacknowledged, so that together they never overflow a
 * peer's receive socket buffer (this device's buffer stands for the peer's: jrdma peers size theirs alike). The
 * engine counts the senders and the packets in flight at the start of every pass ({@link #beginPass}); requesters
 * ask for their window, their share and admission, and report what they send for the first time.
 */
final class SendShares {

    private final int receiveBufferBytes;
    private int senders = 1; // QPs with requests to send or unacknowledged in this pass (shareFor)
    private int inFlight;    // unacknowledged packets of all RC QPs: counted at the start of a pass, then as sent

    SendShares(int receiveBufferBytes) {
        this.receiveBufferBytes = receiveBufferBytes;
    }

    /**
     * The receive-buffer bytes Linux charges for one datagram of a packet of this path MTU: its memory (the packet
     * with its headers and the kernel's overhead, rounded up to a power of two, as the allocator rounds it) plus
     * the socket buffer's own bookkeeping. Measured on loopback: a 4,200-byte datagram costs about 8,450 bytes of
     * SO_RCVBUF, a 1,100-byte one about 2,300.
     */
    static int datagramCost(int mtuBytes) {
        int bytes = mtuBytes + 512;
        int rounded = Integer.highestOneBit(bytes);
        return (rounded < bytes ? rounded << 1 : rounded) + 256;
    }

    /** Starts a pass: {@code sending} QPs have work queued, {@code unacked} RC packets are unacknowledged. */
    void beginPass(int sending, int unacked) {
        senders = Math.max(1, sending);
        inFlight = unacked;
    }

    /**
     * The requester's window of unacknowledged PSNs for a path MTU: what half the receive socket buffer holds
     * ({@link #datagramCost} per packet), between 8 and 256 packets.
     */
    int windowFor(int mtuBytes) {
        return Math.clamp(receiveBufferBytes / (2L * datagramCost(mtuBytes)), 8, 256);
    }

    /**
     * The unacknowledged packets a QP may have now: its {@code window}, or, when several QPs are sending in this
     * pass, its share of half a receive socket buffer (at least one packet). Each window is sized as if its QP
     * were alone; a thousand of them at once would overflow the peer's socket, and every loss costs an ACK timeout.
     */
    int shareFor(int mtuBytes, int window) {
        int n = senders;
        if (n <= 1) {
            return window;
        }
        long share = receiveBufferBytes / (2L * n * datagramCost(mtuBytes));
        return Math.clamp(share, 1, window);
    }

    /**
     * Whether a QP may start a new message: the device's RC QPs together keep no more packets in flight than a
     * third of a receive socket buffer holds (leaving room for the peer's own ACKs and the kernel's deferred
     * accounting), however their shares were sized (a QP posted to before the others sized its share when it was
     * alone). Checked only between messages, whose last packets ask for an ACK: every QP held back here is
     * waiting for ACKs that were asked for. The pass visits QPs from a rotating start, so none is always last.
     */
    boolean mayAdmit(int mtuBytes) {
        return inFlight < Math.max(1, receiveBufferBytes / (3L * datagramCost(mtuBytes)));
    }

    /** Counts packets a requester sent for the first time (see {@link #mayAdmit}). */
    void admitted(int packets) {
        inFlight += packets;
    }
}

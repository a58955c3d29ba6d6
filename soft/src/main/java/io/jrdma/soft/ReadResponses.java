package io.jrdma.soft;

import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.AtomicAckEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Position;
import io.jrdma.wire.Psn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An RC responder's ring of read resources (IBA 9.7.5.2.5, rxe's resp_res array, max_dest_rd_atomic of them) and
 * its output: READ responses streamed packet by packet and ATOMIC ACKNOWLEDGEs, in request order, from the head of
 * the ring. Finished resources stay in the ring, readable, so a duplicate READ or atomic is answered from them
 * ({@link #replayRead}, {@link #replayAtomic}) until a new request takes their slot ({@link #victim}).
 */
final class ReadResponses {

    private final SoftQp qp;
    private final Transmitter xmit;
    private final Responder responder;

    private ReadResource[] reads = {new ReadResource()};
    private int head;
    private int count;

    ReadResponses(SoftQp qp, Responder responder) {
        this.qp = qp;
        this.xmit = qp.context.transmitter;
        this.responder = responder;
    }

    /** RESET: nothing owed, and PSNs start over: no old request may be taken for a duplicate. */
    void reset() {
        count = 0;
        for (ReadResource r : reads) {
            r.forget();
        }
    }

    /** Sizes the ring to max_dest_rd_atomic (control path, engine lock held); only while nothing is owed. */
    void resize(int n) {
        if (n != reads.length && count == 0) {
            reads = new ReadResource[n];
            for (int i = 0; i < n; i++) {
                reads[i] = new ReadResource();
            }
            head = 0;
        }
    }

    /** Whether responses are owed (queued between the ring's head and tail). */
    boolean owed() {
        return count > 0;
    }

    /** The QP failed: nothing more is answered. */
    void discard() {
        count = 0;
    }

    /**
     * The resource a new READ or atomic takes (-1: none, the requester sent more than max_dest_rd_atomic): the
     * one holding the oldest request, whether finished or queued again for a duplicate (a replay), never one
     * still to be answered for the first time. Requests complete at the requester in PSN order, so the oldest
     * is the one a requester within its max_rd_atomic no longer needs (the kernel recycles the oldest too).
     */
    int victim(int expectedPsn) {
        int found = -1;
        int oldest = -1;
        for (int i = 0; i < reads.length; i++) {
            ReadResource r = reads[i];
            if (!r.used()) {
                return i;
            }
            if (active(i) && !r.replay()) {
                continue;
            }
            int age = Psn.diff(expectedPsn, r.firstPsn());
            if (age < 0) {
                age = Integer.MAX_VALUE; // more than 2^23 PSNs ago: older than anything
            }
            if (age > oldest) {
                found = i;
                oldest = age;
            }
        }
        return found;
    }

    /** Takes resource {@code i} (from {@link #victim}) for a new request, queued at the tail. */
    ReadResource claim(int i) {
        int n = reads.length;
        ReadResource r = reads[i];
        if (active(i)) {
            // a replay gives way: out of the queue, which closes up behind it
            int last = (head + count - 1) % n;
            for (int j = i; j != last; j = (j + 1) % n) {
                reads[j] = reads[(j + 1) % n];
            }
            reads[last] = r;
            count--;
        } else {
            moveToTail(i);
        }
        r.claimed();
        count++;
        return r;
    }

    /** True when resource {@code i} is queued for transmission (between the ring's head and tail). */
    private boolean active(int i) {
        return Math.floorMod(i - head, reads.length) < count;
    }

    /** Queues the finished resource {@code i} again, at the tail of the ring. */
    private void activate(int i) {
        moveToTail(i);
        count++;
    }

    /** Moves the finished resource {@code i} to the tail; the finished ones between move up, keeping order. */
    private void moveToTail(int i) {
        int n = reads.length;
        int tail = (head + count) % n;
        ReadResource r = reads[i];
        for (int j = i; j != tail; j = (j - 1 + n) % n) {
            reads[j] = reads[(j - 1 + n) % n];
        }
        reads[tail] = r;
    }

    /**
     * A duplicate READ (rxe duplicate_request): the requester asks again, from {@code psn}, for the part of a read
     * it did not receive. It is served only from the read resource of the ring whose PSNs include {@code psn},
     * with the same rkey, the address of that packet and a length within the rest of the resource; anything else
     * is dropped (class D). The resource streams again from that packet, in place (it takes no resource of its
     * own, and gives way to new requests, see {@link #victim}). Responses after the first packet go out as
     * MIDDLE and LAST, as rxe replays them.
     */
    void replayRead(int psn, int rkey, long va, long len) {
        int mtu = qp.mtuBytes;
        for (int i = 0; i < reads.length; i++) {
            ReadResource r = reads[i];
            int k = Psn.diff(psn, r.firstPsn());
            if (r.used() && !r.atomic() && k >= 0 && k < r.packets() && r.rkey() == rkey
                    && va == r.va() + (long) k * mtu && len <= r.length() - (long) k * mtu) {
                if (active(i)) {
                    r.rewindTo(k);
                } else {
                    r.replayFrom(k);
                    activate(i);
                }
                return;
            }
        }
    }

    /**
     * A duplicate atomic (its PSN was executed): answered with the saved original value and the current
     * {@code msn}, never executed again. One whose resource the ring has reused is dropped, as rxe does (class D);
     * one whose acknowledge is still queued needs nothing more.
     */
    void replayAtomic(int psn, int msn) {
        for (int i = 0; i < reads.length; i++) {
            ReadResource r = reads[i];
            if (r.used() && r.atomic() && r.firstPsn() == psn) {
                if (!active(i)) { // else its acknowledge is still queued
                    r.replayAtomic(msn); // queued again in order behind owed read responses, in place
                    activate(i);
                }
                return;
            }
        }
    }

    /**
     * Sends up to {@code budget} responses from the head of the ring, read responses with {@code msn}; stops early
     * when a read's region went away (the responder then failed the QP). Returns the packets sent.
     */
    int send(int budget, int msn) {
        int sent = 0;
        while (count > 0 && sent < budget) {
            ReadResource r = reads[head];
            if (r.atomic()) {
                sendAtomicAck(r);
            } else if (!sendReadResponse(r, msn)) {
                return sent;
            }
            sent++;
            if (r.done()) {
                head = (head + 1) % reads.length;
                count--;
            }
        }
        return sent;
    }

    /**
     * Before a NAK: sends the atomic acknowledges queued at the head of the ring, so atomics executed before the
     * failing request complete at the requester instead of being taken for lost (their effect is done).
     */
    void sendOwedAtomicAcks() {
        while (count > 0 && reads[head].atomic()) {
            sendAtomicAck(reads[head]);
            head = (head + 1) % reads.length;
            count--;
        }
    }

    private boolean sendReadResponse(ReadResource r, int msn) {
        int k = r.sent();
        int mtu = qp.mtuBytes;
        long offset = (long) k * mtu;
        int payload = (int) Math.min(mtu, r.length() - offset);
        Position pos = r.packets() == 1 ? Position.ONLY
                : k == 0 ? Position.FIRST : k == r.packets() - 1 ? Position.LAST : Position.MIDDLE;
        Opcode op = Opcode.readResponse(pos);
        int psn = Psn.add(r.firstPsn(), k);
        MemorySegment tx = xmit.packet();
        int pad = (-payload) & 3;
        Bth.write(tx, 0, op.code(), false, false, pad, SoftLimits.PKEY_DEFAULT, qp.destQpn, false, psn);
        if (op.hasAeth()) {
            Aeth.setSyndrome(tx, op.aethOffset(), AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
            Aeth.setMsn(tx, op.aethOffset(), msn);
        }
        int hdr = op.headerLength();
        if (payload > 0) {
            SoftMr mr = RemoteKeys.recheck(qp, r.rkey(), r.va() + offset, payload);
            if (mr == null) {
                responder.readRegionGone(psn); // deregistered or invalidated while being read
                return false;
            }
            if (xmit.byReference()) {
                xmit.clearPieces();
                if (xmit.addPiece(mr, r.va() + offset - mr.address, payload)) {
                    xmit.sendByReference(qp, hdr, payload, pad); // the kernel reads the MR directly
                    r.sentOne();
                    return true;
                }
            }
            MemorySegment.copy(mr.segment, r.va() + offset - mr.address, tx, hdr, payload);
        }
        for (int i = 0; i < pad; i++) {
            tx.set(ValueLayout.JAVA_BYTE, hdr + payload + i, (byte) 0);
        }
        xmit.send(qp, hdr + payload + pad);
        r.sentOne();
        return true;
    }

    /** ATOMIC ACKNOWLEDGE: AETH (ACK, MSN) and AtomicAckETH with the original value, big-endian on the wire. */
    private void sendAtomicAck(ReadResource r) {
        MemorySegment tx = xmit.packet();
        Opcode op = Opcode.RC_ATOMIC_ACKNOWLEDGE;
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, false, r.firstPsn());
        Aeth.setSyndrome(tx, op.aethOffset(), AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        Aeth.setMsn(tx, op.aethOffset(), r.msn());
        AtomicAckEth.setOrigData(tx, op.atomicAckEthOffset(), r.origValue());
        xmit.send(qp, op.headerLength());
        r.sentOne();
    }
}

package io.jrdma.soft;

/**
 * How many resources use a resource that cannot be destroyed while used (a PD's MRs, MWs, QPs and AHs; a CQ's QPs; a
 * channel's CQs; an SRQ's QPs): destroying it then fails with EBUSY, as in libibverbs. Changed on the control path
 * under the device lock.
 */
final class UseCount {

    private int count;

    /** One more user. */
    void retain() {
        count++;
    }

    /** One user fewer. */
    void release() {
        count--;
    }

    /** The users now. */
    int count() {
        return count;
    }
}

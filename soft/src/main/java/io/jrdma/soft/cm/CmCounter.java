package io.jrdma.soft.cm;

/** What a CM agent counts (shown by {@link CmAgent#counters()}). */
enum CmCounter {
    /** MADs received. */
    MADS_RECEIVED,
    /** MADs sent, retransmissions included. */
    MADS_SENT,
    /** Retransmissions of an unanswered REQ, REP, DREQ or SIDR_REQ. */
    RETRANSMISSIONS,
    /** Dropped: shorter than a MAD. */
    DROPPED_TRUNCATED,
    /** Dropped: not base version 1, class 7 (CM), class version 2. */
    DROPPED_BAD_VERSION,
    /** Dropped: an attribute the CM does not handle. */
    DROPPED_BAD_ATTRIBUTE,
    /** Dropped: for a communication id the agent does not know, or in a state that takes no such message. */
    DROPPED_UNKNOWN_ID,
    /** Duplicates (REQ, REP, DREQ, SIDR_REQ) recognised and answered or ignored. */
    DUPLICATES,
    /** REQs dropped because the listener's backlog was full. */
    DROPPED_BACKLOG,
    /** REJs sent because nobody listens on the service id. */
    REJ_INVALID_SERVICE_ID,
    /** Connections that ran out of retries. */
    TIMEOUTS;

    /** Whether this counts a MAD dropped as bad (also counted in the device's {@code mad_agent_dropped}). */
    boolean dropped() {
        return name().startsWith("DROPPED_");
    }
}

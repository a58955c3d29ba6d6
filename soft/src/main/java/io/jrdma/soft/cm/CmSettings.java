package io.jrdma.soft.cm;

/**
 * The CM's timing, as the kernel's rdma_cm and ib_cm choose it, each overridable by a system property so tests can
 * shorten them: CM response timeout 20 ({@code CMA_CM_RESPONSE_TIMEOUT}), 15 retries ({@code CMA_MAX_CM_RETRIES}),
 * RoCE packet lifetime 16 ({@code CMA_IBOE_PACKET_LIFETIME}), local CA ACK delay 15 (rxe's).
 *
 * @param responseTimeout CM response timeout (IBA encoding: 4.096 us * 2^n), {@code jrdma.cm.responseTimeout}
 * @param maxRetries      retransmissions of an unanswered REQ, REP, DREQ or SIDR_REQ, {@code jrdma.cm.maxRetries}
 * @param packetLifetime  path packet lifetime (IBA encoding), {@code jrdma.cm.packetLifetime}
 * @param caAckDelay      the device's local CA ACK delay (IBA encoding), as rxe reports it
 */
record CmSettings(int responseTimeout, int maxRetries, int packetLifetime, int caAckDelay) {

    /** The settings of the system properties now (read at every connect, so tests may change them). */
    static CmSettings current() {
        return new CmSettings(Integer.getInteger("jrdma.cm.responseTimeout", 20),
                Integer.getInteger("jrdma.cm.maxRetries", 15), Integer.getInteger("jrdma.cm.packetLifetime", 16),
                15);
    }

    /** ib_cm's approximation of 4.096 us * 2^iba in milliseconds (cm_convert_to_ms). */
    static long toMs(int iba) {
        return 1L << Math.max(iba - 8, 0);
    }

    /** The local ACK timeout ib_cm puts in a REQ (cm_ack_timeout: about ack delay + 2 * packet lifetime). */
    int ackTimeout() {
        int t = packetLifetime + 1;
        if (t >= caAckDelay) {
            t += caAckDelay >= t - 1 ? 1 : 0;
        } else {
            t = caAckDelay + (t >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, t);
    }

    /** How long an active side waits for a REP before resending its REQ: 2 * lifetime + response timeout. */
    long reqTimeoutMs() {
        return toMs(packetLifetime) * 2 + toMs(responseTimeout);
    }

    /** How long a SIDR_REQ waits for its SIDR_REP (rdma_cm: 1 << (CMA_CM_RESPONSE_TIMEOUT - 8) ms). */
    long sidrTimeoutMs() {
        return toMs(responseTimeout);
    }
}

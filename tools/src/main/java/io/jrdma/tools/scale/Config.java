package io.jrdma.tools.scale;

import io.jrdma.soft.Threading;
import io.jrdma.verbs.Mtu;
import java.time.Duration;

/**
 * The settings of one {@code jrdma scale} side. Both sides must agree on the QP count, the messages per QP, the
 * message size and the path MTU (the exchange checks); queue sizes, threading and pacing are each side's own.
 *
 * @param qps      RC QPs per side
 * @param messages RDMA WRITEs and SENDs each QP sends (K of each)
 * @param size     bytes per message, a multiple of 8
 * @param sendWr   max_send_wr of every QP
 * @param recvWr   max_recv_wr of every QP
 * @param inline   max_inline_data of every QP (0: none)
 * @param rdAtomic max_rd_atomic and max_dest_rd_atomic of every QP
 * @param mtu      path MTU
 * @param inflight most send requests outstanding on the whole side at once (0: no limit beyond the queues)
 * @param ackTimeout the QPs' local ACK timeout exponent (IBA: 4.096 us x 2^value)
 * @param threading who runs the device's engine
 * @param timeout  bound of every wait
 */
record Config(int qps, int messages, int size, int sendWr, int recvWr, int inline, int rdAtomic, Mtu mtu,
        int inflight, int ackTimeout, Threading threading, Duration timeout) {

    /** Most QPs a side may ask for: the soft device's 4096 less room for the warm-up pair. */
    static final int MAX_QPS = 4000;
    /** Largest message. */
    static final int MAX_SIZE = 1 << 20;
    /** The goal for the memory of one idle QP beyond its queue buffers. */
    static final long GOAL_BYTES = 32 * 1024;

    /**
     * Checks the values against each other and the device's limits.
     *
     * @throws IllegalArgumentException with a message that names the option
     */
    Config {
        if (qps < 1 || qps > MAX_QPS) {
            throw new IllegalArgumentException("--qps must be 1.." + MAX_QPS + " (the soft device has 4096 QPs)");
        }
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be at least 1");
        }
        if (size < 8 || size > MAX_SIZE || size % 8 != 0) {
            throw new IllegalArgumentException("--size must be a multiple of 8 in 8.." + MAX_SIZE);
        }
        if (sendWr < 2L * messages || sendWr > 16384) {
            throw new IllegalArgumentException("--tx-depth (max_send_wr) must be 2 x --messages (a WRITE and a SEND"
                    + " per message) up to 16384; got " + sendWr + " for " + messages + " messages");
        }
        if (recvWr < messages || recvWr > 16384) {
            throw new IllegalArgumentException("--rx-depth (max_recv_wr) must be --messages up to 16384; got " + recvWr
                    + " for " + messages + " messages");
        }
        if (inline < 0 || inline > 256) {
            throw new IllegalArgumentException("--inline must be 0..256");
        }
        if (rdAtomic < 0 || rdAtomic > 128) {
            throw new IllegalArgumentException("--rd-atomic must be 0..128");
        }
        if (inflight < 0 || (inflight > 0 && inflight < 2)) {
            throw new IllegalArgumentException("--inflight must be 0 (no limit) or at least 2");
        }
        if (ackTimeout < 1 || ackTimeout > 31) {
            throw new IllegalArgumentException("--ack-timeout must be 1..31 (4.096 us x 2^value)");
        }
        if ((long) qps * messages * 2 > 1 << 20) {
            throw new IllegalArgumentException("--qps x --messages x 2 send completions exceed a CQ's 1048576 entries");
        }
        if ((long) qps * messages * size * 4 > 8L << 30) {
            throw new IllegalArgumentException("--qps x --messages x --size needs more than 8 GiB of buffers");
        }
    }

    /** Send requests one side posts: a WRITE and a SEND per message. */
    long sends() {
        return 2L * qps * messages;
    }

    /** Receives one side takes: one per SEND. */
    long receives() {
        return (long) qps * messages;
    }

    /** Bytes one side sends (and receives). */
    long bytes() {
        return sends() * size;
    }
}

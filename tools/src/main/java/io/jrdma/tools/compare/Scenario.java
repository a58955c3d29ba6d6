package io.jrdma.tools.compare;

import java.util.Locale;

/** The scenarios of {@code jrdma bench}, by their command-line names. */
enum Scenario {
    /** RDMA WRITE bandwidth, 64 KiB messages, against a NIO TCP stream and Aeron UDP; also the CPU cost. */
    WRITE_BW("write-bw"),
    /** 2-byte SEND ping-pong latency, busy-poll and blocking, against UDP and Aeron ping-pong. */
    SEND_LAT("send-lat"),
    /** 2-byte RDMA WRITE message rate against TCP (per-write and buffered) and Aeron. */
    MSG_RATE("msg-rate"),
    /** RDMA READ bandwidth at 64 KiB and 1 MiB against a TCP stream of the same message size. */
    READ_BW("read-bw"),
    /** WRITE and READ bandwidth with 1, 2, 4 and 8 QPs, against 1 QP. */
    QP_SCALING("qp-scaling"),
    /** An idle connected device's CPU time, and its round trip after idle gaps, against NIO UDP ({@link IdleBench}). */
    IDLE("idle");

    final String id;

    Scenario(String id) {
        this.id = id;
    }

    /**
     * The scenario named {@code id}.
     *
     * @throws IllegalArgumentException naming the known scenarios when there is none
     */
    static Scenario of(String id) {
        for (Scenario s : values()) {
            if (s.id.equals(id.trim().toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + id + "' (known: " + names() + ")");
    }

    static String names() {
        StringBuilder sb = new StringBuilder();
        for (Scenario s : values()) {
            sb.append(sb.isEmpty() ? "" : ", ").append(s.id);
        }
        return sb.toString();
    }
}

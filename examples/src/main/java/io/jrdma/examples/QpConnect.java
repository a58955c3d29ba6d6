package io.jrdma.examples;

import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import java.util.EnumSet;
import java.util.Objects;

/**
 * The one place that connects a queue pair from the QP information two sides exchanged: RESET to INIT, INIT to RTR
 * (ready to receive from the remote side) and RTR to RTS (ready to send), with the attribute masks libibverbs programs
 * use (ibv_rc_pingpong's {@code pp_connect_ctx}, perftest's {@code ctx_connect}). The examples, the perftest,
 * pingpong, scale and compare tools and the JMH benchmarks all connect through it; what differs between them is an
 * {@link Options} value.
 *
 * <p>RC, one step at a time: {@link #init}, {@link #readyToReceive}, {@link #readyToSend}; or {@link #connect} for all
 * three. UD: {@link #initUd}, then {@link #connectUd}.
 */
public final class QpConnect {

    // Each modify gets a copy of its mask: a provider may keep the set it is given.
    private static final EnumSet<QpAttrMask> INIT_MASK =
            EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS);
    private static final EnumSet<QpAttrMask> INIT_UD_MASK =
            EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY);
    private static final EnumSet<QpAttrMask> RTR_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
            QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC,
            QpAttrMask.MIN_RNR_TIMER);
    private static final EnumSet<QpAttrMask> RTS_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN,
            QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC);

    private QpConnect() {
    }

    /**
     * What one side tells the other so that the other can address it: ibv_rc_pingpong's {@code pingpong_dest}.
     *
     * @param lid the port's LID (0 on RoCE)
     * @param qpn the QP number (24 bits)
     * @param psn the first PSN this side sends (24 bits): the other side's expected receive PSN
     * @param gid the GID the other side addresses this side by
     */
    public record Address(int lid, int qpn, int psn, Gid gid) {

        /**
         * Checks the ranges of the fields.
         *
         * @throws IllegalArgumentException when lid is not 16 bits or qpn or psn not 24 bits
         */
        public Address {
            Objects.requireNonNull(gid, "gid");
            if ((lid & ~0xFFFF) != 0) {
                throw new IllegalArgumentException("lid 0x" + Integer.toHexString(lid) + " is not 16 bits");
            }
            if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
                throw new IllegalArgumentException("qpn 0x" + Integer.toHexString(qpn) + " and psn 0x"
                        + Integer.toHexString(psn) + " must be 24 bits");
            }
        }
    }

    /**
     * The attribute values of a connection, one per choice a libibverbs program makes. {@link #DEFAULTS} are the
     * examples' (and ibv_rc_pingpong's) values; each {@code with} method returns a copy with some changed.
     *
     * @param port            the port number (INIT and the address vector)
     * @param access          the remote operations the QP allows ({@code qp_access_flags}, INIT)
     * @param mtu             the path MTU (RTR)
     * @param grh             whether the address vector carries a GRH (required on RoCE)
     * @param sgidIndex       the source GID index of the GRH
     * @param hopLimit        the hop limit of the GRH
     * @param trafficClass    the traffic class of the GRH
     * @param sl              the service level of the address vector
     * @param maxDestRdAtomic the READs and atomics this side answers at once ({@code max_dest_rd_atomic}, RTR)
     * @param minRnrTimer     the delay this side's RNR NAKs ask for, IBA table 45 ({@code min_rnr_timer}, RTR)
     * @param timeout         the local ACK timeout, 4.096 us * 2^timeout ({@code timeout}, RTS)
     * @param retryCnt        the retries after a timeout ({@code retry_cnt}, RTS)
     * @param rnrRetry        the retries after an RNR NAK, 7 for ever ({@code rnr_retry}, RTS)
     * @param maxRdAtomic     the READs and atomics this side has in flight ({@code max_rd_atomic}, RTS)
     */
    public record Options(int port, int access, Mtu mtu, boolean grh, int sgidIndex, int hopLimit, int trafficClass,
                          int sl, int maxDestRdAtomic, int minRnrTimer, int timeout, int retryCnt, int rnrRetry,
                          int maxRdAtomic) {

        /**
         * Port 1, no remote access, MTU 1024, a GRH from GID index 1 (the IPv4-mapped address, as on rxe) with hop
         * limit 64, SL 0, 4 READs each way, RNR timer 12 (0.64 ms), ACK timeout 14 (67 ms), 7 retries of each kind.
         */
        public static final Options DEFAULTS = new Options(1, 0, Mtu.MTU_1024, true, 1, 64, 0, 0, 4, 12, 14, 7, 7, 4);

        public Options {
            Objects.requireNonNull(mtu, "mtu");
        }

        /** A copy with {@code port}. */
        public Options withPort(int port) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy with {@code access} as the QP's access flags. */
        public Options withAccess(int access) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy with {@code mtu} as the path MTU. */
        public Options withMtu(Mtu mtu) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy whose address vector carries a GRH from {@code sgidIndex} with {@code hopLimit}. */
        public Options withGrh(int sgidIndex, int hopLimit) {
            return new Options(port, access, mtu, true, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy whose address vector carries no GRH (an InfiniBand LID route). */
        public Options withoutGrh() {
            return new Options(port, access, mtu, false, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy with {@code sl} as the service level. */
        public Options withSl(int sl) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy with {@code maxDestRdAtomic} answered and {@code maxRdAtomic} in flight. */
        public Options withRdAtomic(int maxDestRdAtomic, int maxRdAtomic) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy with {@code rdAtomic} READs and atomics each way. */
        public Options withRdAtomic(int rdAtomic) {
            return withRdAtomic(rdAtomic, rdAtomic);
        }

        /** A copy with {@code minRnrTimer}. */
        public Options withMinRnrTimer(int minRnrTimer) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy with {@code timeout} as the local ACK timeout. */
        public Options withTimeout(int timeout) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** A copy with {@code retryCnt} retries after a timeout and {@code rnrRetry} after an RNR NAK. */
        public Options withRetry(int retryCnt, int rnrRetry) {
            return new Options(port, access, mtu, grh, sgidIndex, hopLimit, trafficClass, sl, maxDestRdAtomic,
                    minRnrTimer, timeout, retryCnt, rnrRetry, maxRdAtomic);
        }

        /** The address vector to reach {@code remote} with: its LID, and with {@link #grh} its GID. */
        public AhAttr addressVector(Address remote) {
            AhAttr av = new AhAttr().dlid(remote.lid()).sl(sl).srcPathBits(0).portNum(port);
            if (grh) {
                av.isGlobal(true).dgid(remote.gid()).sgidIndex(sgidIndex).hopLimit(hopLimit)
                        .trafficClass(trafficClass);
            }
            return av;
        }
    }

    /** RESET to INIT for RC (and UC): P_Key index 0, the port and access flags of {@code o}. */
    public static void init(QueuePair qp, Options o) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(o.port()).qpAccessFlags(o.access()),
                EnumSet.copyOf(INIT_MASK));
    }

    /** RESET to INIT for UD: P_Key index 0, {@code port} and {@code qkey}. */
    public static void initUd(QueuePair qp, int port, int qkey) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(port).qkey(qkey),
                EnumSet.copyOf(INIT_UD_MASK));
    }

    /** INIT to RTR: receives from {@code remote}'s QP, expecting its first PSN. */
    public static void readyToReceive(QueuePair qp, Address remote, Options o) {
        qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(o.addressVector(remote)).pathMtu(o.mtu())
                .destQpNum(remote.qpn()).rqPsn(remote.psn()).maxDestRdAtomic(o.maxDestRdAtomic())
                .minRnrTimer(o.minRnrTimer()), EnumSet.copyOf(RTR_MASK));
    }

    /** RTR to RTS: sends from {@code sqPsn} on. */
    public static void readyToSend(QueuePair qp, int sqPsn, Options o) {
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(o.timeout()).retryCnt(o.retryCnt())
                .rnrRetry(o.rnrRetry()).maxRdAtomic(o.maxRdAtomic()), EnumSet.copyOf(RTS_MASK));
    }

    /**
     * Connects an RC {@code qp} to {@code remote}: INIT first when the QP is still in RESET, then RTR and RTS,
     * sending from {@code local.psn()} on.
     */
    public static void connect(QueuePair qp, Address local, Address remote, Options o) {
        if (qp.state() == QpState.RESET) {
            init(qp, o);
        }
        readyToReceive(qp, remote, o);
        readyToSend(qp, local.psn(), o);
    }

    /** INIT to RTR to RTS for UD (no remote QP: each send names its own), sending from {@code sqPsn} on. */
    public static void connectUd(QueuePair qp, int sqPsn) {
        qp.modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
    }
}

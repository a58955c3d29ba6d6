package io.jrdma.ibverbs.rxe;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Conformance cases whose first failing assertion does not hold on the rxe-lab guest's kernel (Debian 6.1 rdma_rxe
 * with rdma-core 44's librxe) through the native provider, each with the reason: a behaviour of the kernel or of
 * libibverbs that differs from what the suite (written against the soft provider, which follows the IBTA where
 * rxe does not: docs/ARCHITECTURE.md "Deviations") asserts, or a premise of the test that this environment (both
 * endpoints on one device, a 2 GiB guest) cannot meet. {@link NativeTckMain} reports such a failure as DIFF with
 * the reason instead of failing the run; every other failure fails it. Each reason was checked against the
 * guest (the failure message, and for SQD, ERR and SRQ events a probe of the kernel's behaviour).
 */
final class KnownDifferences {

    private static final Map<String, String> REASONS = new HashMap<>();

    private static void add(String reason, String... tests) {
        for (String t : List.of(tests)) {
            REASONS.put(t, reason);
        }
    }

    static {
        add("environment: both endpoints are contexts on the same device (rxe0 of one guest), so they share its GID",
                "IbvDeviceTck#routableGidIsIpv4MappedAndDiffersPerEndpoint");
        add("libibverbs: ibv_post_send/ibv_post_recv do not check lkeys (ibv_post_send(3)); the device checks them "
                + "when the request runs and reports a LOC_PROT_ERR completion, so nothing is refused at post",
                "IbvPdTck#localKeyOfAnotherPdIsRefusedAtPostBadFlow", "IbvMrTck#subRangeRegistrationBoundsTheSges",
                "IbvMrTck#deregisteredLkeyIsRefusedAtPostBadFlow",
                "IbvMrTck#sgeOfAnotherPdIsEinvalForSendsAndReceivesBadFlow",
                "IbvMrTck#sgeReachingPastItsRegionIsEinvalBadFlow",
                "IbvIsolationTck#receiveWithAnLkeyOfAnotherPdIsRefusedAtPost",
                "IbvIsolationTck#sendWithAnLkeyOfAnotherPdIsRefusedAtPost", "IbvIsolationTck#windowRkeyIsNotAnLkey");
        add("kernel rxe 6.1: modify SQD -> RTS does not restart the requester; requests posted in SQD wait until "
                + "the next ibv_post_send rings the doorbell (probed: they complete after a second post)",
                "IbvMrTck#readTargetDeregisteredAfterPostingBadFlow",
                "IbvMrTck#regionDeregisteredAfterPostingIsALocalProtectionErrorBadFlow",
                "IbvQpQueueTck#requestsPostedInSqdWaitForRts", "IbvSendRecvTck#inlineSendCopiesTheDataAtPostTime",
                "IbvUcTck#localErrorEntersSqeFlushesLaterSendsKeepsReceivingAndResumes",
                "IbvAsyncEventTck#sqdStartsNoNewMessageAndRtsResumes");
        add("kernel rxe 6.1: a receive buffer that cannot take the data (too small, no SGE, lkey gone, no "
                + "LOCAL_WRITE) fails in copy_data and completes through the malformed-WQE path as LOC_QP_OP_ERR, "
                + "not LOC_LEN_ERR / LOC_PROT_ERR; a UD datagram that does not fit completes the same way instead "
                + "of being dropped (rxe's later fix \"responder length checking for UD\" is not in 6.1)",
                "IbvMrTck#receiveBufferDeregisteredAfterPostingBadFlow",
                "IbvSendRecvTck#receiveWithoutScatterEntriesTakesOnlyEmptyMessagesBadFlow",
                "IbvSendRecvTck#receiveIntoMemoryWithoutLocalWriteIsAProtectionErrorBadFlow",
                "IbvSendRecvTck#receiveTooSmallIsALocalLengthErrorAtTheReceiverBadFlow",
                "IbvSendRecvTck#receiveOverflowingInTheMiddleOfAMessageBadFlow", "IbvSendRecvTck#sendAtEveryPathMtu",
                "IbvUcTck#receiveTooSmallFailsWithLocalLengthErrorAndFlushes",
                "IbvSrqTck#tooSmallSrqWqeFailsTheMessageAndTheQpBadFlow",
                "IbvAsyncEventTck#errorReportedByAReceiveCompletionRaisesNoEventBadFlow",
                "IbvUdTck#datagramWithoutAFittingReceiveIsDropped");
        add("kernel rxe: a CQ overrun drops the completion and raises IB_EVENT_CQ_ERR for every completion that "
                + "finds the CQ full; librxe's poll_cq never returns an error, so polling reports no EIO",
                "IbvCqTck#overrunIsReportedAsEioBadFlow", "IbvAsyncEventTck#overrunningACqRaisesCqErrOnceBadFlow");
        add("libibverbs: ibv_wc.opcode is undefined unless the status is SUCCESS (ibv_poll_cq(3)); kernel rxe "
                + "leaves it 0 (IBV_WC_SEND) in error completions, and the test asserts the operation's opcode",
                "IbvAtomicTck#atomicOnARegionWithoutRemoteAtomicFailsWithRemoteAccessError",
                "IbvAtomicTck#atomicJustBeforeARegionFailsWithRemoteAccessError",
                "IbvAtomicTck#atomicJustPastTheEndOfARegionFailsWithRemoteAccessError",
                "IbvAtomicTck#atomicToAQpWithoutRemoteAtomicFailsWithInvalidRequest",
                "IbvAtomicTck#atomicWithABadRkeyFailsWithRemoteAccessError",
                "IbvMwTck#boundType2WindowCannotBeBoundAgain", "IbvMwTck#localInvalidateOfAType1WindowFails",
                "IbvMwTck#bindToARegionWithoutMwBindFails", "IbvMwTck#bindReachingPastTheRegionFails",
                "IbvMwTck#zeroLengthType2BindFails", "IbvMwTck#writableWindowNeedsLocalWriteOnTheRegion",
                "IbvIsolationTck#type2BindThroughAQpOfAnotherPdFails");
        add("kernel rxe 6.1: every receive completion of a user QP carries IB_WC_GRH, whatever the QP type, and the "
                + "kernel's ib_wc_flags are written to the user CQ unconverted, so IB_WC_WITH_INVALIDATE (1 << 2) "
                + "reads as IBV_WC_IP_CSUM_OK and IBV_WC_WITH_INV never appears",
                "IbvUcTck#sendWithImmediateCarriesIt", "IbvUcTck#rdmaWriteWithImmediateConsumesAReceive",
                "IbvUcTck#singlePacketSendLandsInReceive", "IbvMwTck#sendWithInvalidateInvalidatesTheReceiversWindow");
        add("kernel rxe: checks remote access through a type 1 window against the window's MR, not the window's "
                + "own bounds (docs/ARCHITECTURE.md lists it where the soft device follows the IBTA)",
                "IbvMwTck#type1WindowRefusesAWritePastItsEnd", "IbvMwTck#type1WindowRefusesAReadBeforeItsStart");
        add("environment: both endpoints share one device, so a UD datagram takes rxe's loopback, which never "
                + "computes the IPv4 header checksum that the GRH area of the receive buffer then shows",
                "IbvUdTck#immediateDataAndAReplyToTheSourceQpn", "IbvUdTck#zeroByteDatagramCarriesOnlyTheGrh",
                "IbvUdTck#datagramArrivesAfterTheGrhWithTheSendersQpn");
        add("kernel rxe: sends wr.ud.remote_qkey with the high bit set unchanged instead of the QP's own Q_Key "
                + "(IBA 10.2.5 privileged Q_Key), so the receiver drops the datagram",
                "IbvUdTck#privilegedQkeyTakesTheSendersOwnQkey");
        add("kernel rxe: has no SQE state; a UD/UC send error moves the QP to ERR",
                "IbvUdTck#addressHandleOfAnotherPdFailsTheRequestAndEntersSqe");
        add("kernel rxe 6.1: never raises IB_EVENT_QP_LAST_WQE_REACHED (probed: none after INIT -> ERR of a QP on "
                + "an SRQ)", "IbvSrqTck#qpOnSrqFlushesItsOwnSendQueue",
                "IbvSrqTck#qpOnSrqEnteringErrorRaisesLastWqeReachedAndLeavesTheSrqAlone");
        add("kernel rxe: raises SQ_DRAINED whether or not en_sqd_async_notify was set",
                "IbvAsyncEventTck#sqDrainedIsRaisedOnlyWhenAskedFor");
        add("kernel rxe: never raises COMM_EST (docs/ARCHITECTURE.md: mainline rxe never raises it)",
                "IbvAsyncEventTck#firstRequestAtAQpInRtrRaisesCommEstOnce");
        add("kernel rxe: moves the responder's QP to ERR on an rkey violation without raising QP_ACCESS_ERR "
                + "(IBA C9-222.1.1, which the soft device follows)",
                "IbvAsyncEventTck#rkeyViolationAtTheResponderRaisesQpAccessErrBadFlow");
        add("kernel rxe: completes the receive a WRITE_WITH_IMM with a bad rkey consumed with the NAK's "
                + "REM_ACCESS_ERR, not LOC_ACCESS_ERR",
                "IbvWriteTck#writeWithImmediateAndABadRkeyFailsTheReceiveItConsumedBadFlow");
        add("premise: the test keeps the peer from acknowledging a 512 KiB write by not driving it; a kernel "
                + "device runs by itself, so the write has finished and the QP is no longer draining",
                "IbvAsyncEventTck#leavingSqdWhileDrainingIsRefusedButErrIsAllowedBadFlow");
        add("kernel rxe: posting receives to a QP in ERR only writes librxe's mapped queue; 6.1 flushes the RQ only "
                + "when the QP enters ERR, so they never complete (probed; sends posted in ERR are flushed)",
                "IbvQpQueueTck#postingInErrIsAcceptedAndFlushed");
        add("environment: rxe reports max_qp_wr 1048576, but queues of 2^20 WQEs (~1 GiB of vmalloc) do not fit "
                + "the 2 GiB guest: ibv_create_qp fails with ENOMEM",
                "IbvQpTck#capsAtTheDeviceLimitsAreGranted");
        add("premise: rxe rounds a queue of 64 up to 127 entries (ibv_query_qp reports it, so cap() does), and the "
                + "test posts cap().maxSendWr() 1 KiB messages from a 64 KiB buffer: those past it fail",
                "IbvSendRecvTck#aFullSendQueueOfOutstandingMessages");
    }

    private KnownDifferences() {
    }

    /** Why {@code test} ("IbvQpTck#method") may fail on kernel rxe, or null when it must pass. */
    static String reason(String test) {
        return REASONS.get(test);
    }

    /** Every test listed. */
    static java.util.Set<String> all() {
        return REASONS.keySet();
    }
}

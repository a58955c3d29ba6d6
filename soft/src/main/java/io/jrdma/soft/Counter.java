package io.jrdma.soft;

/** The soft device's counters, named as kernel rxe's hw_counters and the IB port counters. */
public enum Counter {
    /** Packets sent (rxe sent_pkts). */
    SENT_PKTS("sent_pkts"),
    /** Packets received and accepted for processing (rxe rcvd_pkts). */
    RCVD_PKTS("rcvd_pkts"),
    /** Duplicate requests seen by a responder (rxe duplicate_request). */
    DUPLICATE_REQUEST("duplicate_request"),
    /** Requests whose PSN was ahead of the expected one (rxe out_of_seq_request). */
    OUT_OF_SEQ_REQUEST("out_of_seq_request"),
    /** RNR NAKs received by a requester (rxe rcvd_rnr_err). */
    RCVD_RNR_ERR("rcvd_rnr_err"),
    /** RNR NAKs sent by a responder (rxe send_rnr_err). */
    SEND_RNR_ERR("send_rnr_err"),
    /** PSN sequence error NAKs received by a requester (rxe rcvd_seq_err). */
    RCVD_SEQ_ERR("rcvd_seq_err"),
    /** Retransmissions started by the local ACK timeout (rxe completer_retry_err). */
    COMPLETER_RETRY_ERR("completer_retry_err"),
    /** Work requests failed because retry_cnt ran out (rxe retry_exceeded_err). */
    RETRY_EXCEEDED_ERR("retry_exceeded_err"),
    /** Work requests failed because rnr_retry ran out (rxe retry_rnr_exceeded_err). */
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err"),
    /** Packets sent again (go-back-N after a NAK, an implied NAK or the ACK timeout); a READ request counts one. */
    RETRANSMITTED_PKTS("retransmitted_pkts"),
    /** Packets dropped because the ICRC did not verify. */
    ICRC_ERR("icrc_err"),
    /**
     * Packets whose ICRC verified only under a nonzero IPv4 ID, solved for because the socket API hides it
     * (kernel rxe sends nonzero IDs; jrdma sends ID 0, so between jrdma devices this stays 0).
     */
    ICRC_ID_SOLVED("icrc_id_solved"),
    /** Received datagrams dropped for any other reason (malformed, unknown QP, wrong state, wrong source). */
    RCVD_DROPPED("rcvd_dropped"),
    /** Datagrams the kernel refused to send. */
    SEND_ERR("send_err"),
    /** Bytes of IB packets sent (the IB port counter counts 4-byte words; this counts bytes). */
    PORT_XMIT_DATA("port_xmit_data"),
    /** Bytes of IB packets received. */
    PORT_RCV_DATA("port_rcv_data"),
    /** QPs moved to ERR because the engine failed unexpectedly while serving them (a bug, reported, not hidden). */
    QP_FATAL("qp_fatal"),
    /** Completion queue overruns. */
    CQ_OVERRUN("cq_overrun"),
    /** Asynchronous events raised. */
    ASYNC_EVENTS("async_events"),
    /** Asynchronous events dropped because the context's event queue was full. */
    ASYNC_EVENTS_DROPPED("async_events_dropped"),
    /**
     * UC or UD messages dropped by a responder because no receive WQE was posted (UC/UD have no RNR NAK; mlx5
     * out_of_buffer).
     */
    OUT_OF_BUFFER("out_of_buffer"),
    /**
     * UC messages a responder dropped silently (IBA 9.7.5.2, rxe drop_msg): the message in progress when a packet
     * went missing, one whose packets came out of sequence, or one that failed a length, access or rkey check.
     */
    UC_MSG_DROPPED("uc_msg_dropped"),
    /** UD packets dropped because their DETH Q_Key did not match the QP's (the IB port's qkey_viol_cntr). */
    QKEY_VIOLATIONS("qkey_viol_cntr"),
    /** UD packets dropped because the receive WQE could not hold the 40-byte GRH and the payload (as rxe). */
    UD_LEN_DROPPED("ud_len_dropped"),
    /**
     * UD send requests longer than the port MTU: completed successfully without sending a packet (IBA C10-93.1.1,
     * as rxe).
     */
    UD_TOO_LONG("ud_too_long"),
    /**
     * Packets to QP 0 or QP 1 dropped because no {@link MadPort} served that QP (kernel rxe always has QP 1; here it
     * exists while a MAD port is open).
     */
    MAD_NO_PORT("mad_no_port"),
    /** Packets to QP 0 or QP 1 dropped because their payload was not one 256-byte MAD. */
    MAD_LEN_DROPPED("mad_len_dropped"),
    /** Times the port went down (the IB port counter LinkDownedCounter). */
    LINK_DOWNED("link_downed"),
    /** Packets not sent because the port was down (the IB port counter PortXmitDiscards). */
    PORT_XMIT_DISCARDS("port_xmit_discards"),
    /** IB packets sent, the packets of port_xmit_data (the IB port counter port_xmit_packets). */
    PORT_XMIT_PACKETS("port_xmit_packets"),
    /** Datagrams received on the RoCEv2 port, each counted once before any check (IB PortRcvPkts). */
    PORT_RCV_PACKETS("port_rcv_packets"),
    /** SEND work requests completed successfully by the requester (rxe rdma_sends). */
    RDMA_SENDS("rdma_sends"),
    /** Receive work requests completed successfully by the responder (rxe rdma_recvs). */
    RDMA_RECVS("rdma_recvs"),
    /** Packets the fault injector did not send (drop, drop_acks, drop_psn, drop_opcode; see FaultConfig). */
    FAULT_DROPPED("fault_dropped"),
    /** Packets the fault injector sent twice. */
    FAULT_DUPLICATED("fault_duplicated"),
    /** Packets the fault injector held back behind later ones. */
    FAULT_REORDERED("fault_reordered"),
    /** Packets the fault injector delayed. */
    FAULT_DELAYED("fault_delayed"),
    /** Packets the fault injector corrupted (one bit flipped after the ICRC was computed). */
    FAULT_CORRUPTED("fault_corrupted"),
    /** MADs a {@link MadPort} received and handed to its agent (the CM). */
    MAD_RCVD("mad_rcvd"),
    /** MADs a {@link MadPort} sent, retransmissions included. */
    MAD_SENT("mad_sent"),
    /**
     * MADs the port's agent received and dropped as bad ({@link MadPort#countDropped}): for the CM a wrong version or
     * class, an attribute it does not handle, an unknown communication id, a full listener backlog.
     */
    MAD_AGENT_DROPPED("mad_agent_dropped"),
    /**
     * Adaptive and dedicated threading: times the callers' polls found the cores contended (spinning callers switched
     * out for more than a fifth of their spin) and cut their spins short ({@link CallerBackoff}).
     */
    CALLER_CONTENDED("caller_contended"),
    /**
     * Adaptive and dedicated threading: times the callers found the cores crowded (a spin of a millisecond or more
     * preempted while less than half a core idled) and cut their spins short ({@link CallerBackoff#crowded}).
     */
    CALLER_CROWDED("caller_crowded"),
    /**
     * Callers' polls that slept on contended cores: adaptive threading's timed sleeps during a bulk transfer, and
     * dedicated threading's sleeps until the engine thread's next pass with work.
     */
    CALLER_MODERATED_WAITS("caller_moderated_waits"),
    /**
     * Completion-channel waits whose event came while the waiter still polled, before it would have slept in the
     * kernel ({@link WaitSpin}).
     */
    WAITER_POLLED("waiter_polled"),
    /** Datagrams put into the ring of a device of this host (the shared-memory path, {@code ShmLink}). */
    SHM_SENT("shm_sent"),
    /** Datagrams taken from this device's ring (sent by devices of this host). */
    SHM_RCVD("shm_rcvd"),
    /** Doorbells (empty datagrams) sent to devices of this host asleep on their sockets. */
    SHM_DOORBELLS("shm_doorbells"),
    /** Datagrams lost because the ring of the device of this host they were for was full. */
    SHM_RING_FULL("shm_ring_full");

    private final String rxeName;

    Counter(String rxeName) {
        this.rxeName = rxeName;
    }

    /** The counter's name as rxe (or the IB port counters) spell it. */
    public String rxeName() {
        return rxeName;
    }
}

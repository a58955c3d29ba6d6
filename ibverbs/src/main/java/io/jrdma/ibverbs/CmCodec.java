package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.CmStructs.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Java values to and from librdmacm's structs: socket addresses (sockaddr_in, sockaddr_in6), rdma_conn_param,
 * rdma_ud_param, and the parts of an rdma_cm_event. Control path; pure memory work, so tests fill the structs by
 * hand and decode them without a device.
 */
@SuppressWarnings("restricted") // reads the private data librdmacm points to
final class CmCodec {

    /** Bytes of a sockaddr_storage. */
    static final int SOCKADDR_SIZE = 128;

    private CmCodec() {
    }

    /** A sockaddr_in or sockaddr_in6 for {@code a} (family, big-endian port, address) in a new 128-byte buffer. */
    static MemorySegment sockaddr(Arena arena, InetSocketAddress a) {
        if (a.isUnresolved()) {
            throw new VerbsException(Errno.EADDRNOTAVAIL, "address " + a + " is not resolved");
        }
        MemorySegment s = arena.allocate(SOCKADDR_SIZE, 8);
        byte[] ip = a.getAddress().getAddress();
        short port = Short.reverseBytes((short) a.getPort());
        if (ip.length == 4) {
            s.set(JAVA_SHORT, 0, (short) AF_INET);
            s.set(JAVA_SHORT, 2, port);
            MemorySegment.copy(ip, 0, s, JAVA_BYTE, 4, 4);
        } else {
            s.set(JAVA_SHORT, 0, (short) AF_INET6);
            s.set(JAVA_SHORT, 2, port);
            MemorySegment.copy(ip, 0, s, JAVA_BYTE, 8, 16);
        }
        return s;
    }

    /** The socket address at {@code offset}, or null when its family is neither AF_INET nor AF_INET6 (unset). */
    static InetSocketAddress sockaddr(MemorySegment s, long offset) {
        int family = s.get(JAVA_SHORT, offset);
        int port = Short.toUnsignedInt(Short.reverseBytes(s.get(JAVA_SHORT, offset + 2)));
        byte[] ip;
        if (family == AF_INET) {
            ip = new byte[4];
            MemorySegment.copy(s, JAVA_BYTE, offset + 4, ip, 0, 4);
        } else if (family == AF_INET6) {
            ip = new byte[16];
            MemorySegment.copy(s, JAVA_BYTE, offset + 8, ip, 0, 16);
        } else {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // a 4- or 16-byte address is always valid
        }
    }

    /** An rdma_conn_param for {@code p} in {@code arena} (its private data copied there); NULL for null. */
    static MemorySegment connParam(Arena arena, ConnParam p) {
        if (p == null) {
            return MemorySegment.NULL;
        }
        MemorySegment s = arena.allocate(CONN_PARAM);
        byte[] data = p.privateData();
        s.set(ADDRESS, CP_PRIVATE_DATA, privateData(arena, data));
        s.set(JAVA_BYTE, CP_PRIVATE_DATA_LEN, (byte) data.length);
        s.set(JAVA_BYTE, CP_RESPONDER_RESOURCES, (byte) p.responderResources());
        s.set(JAVA_BYTE, CP_INITIATOR_DEPTH, (byte) p.initiatorDepth());
        s.set(JAVA_BYTE, CP_FLOW_CONTROL, (byte) (p.flowControl() ? 1 : 0));
        s.set(JAVA_BYTE, CP_RETRY_COUNT, (byte) p.retryCount());
        s.set(JAVA_BYTE, CP_RNR_RETRY_COUNT, (byte) p.rnrRetryCount());
        s.set(JAVA_BYTE, CP_SRQ, (byte) (p.srq() ? 1 : 0));
        s.set(JAVA_INT, CP_QP_NUM, p.qpNum());
        return s;
    }

    /** {@code data} in {@code arena} (NULL when empty); at most 255 bytes, the width of private_data_len. */
    static MemorySegment privateData(Arena arena, byte[] data) {
        if (data == null || data.length == 0) {
            return MemorySegment.NULL;
        }
        if (data.length > 255) {
            throw new VerbsException(Errno.EINVAL, "private data of " + data.length + " bytes: at most 255");
        }
        MemorySegment d = arena.allocate(data.length);
        MemorySegment.copy(data, 0, d, JAVA_BYTE, 0, data.length);
        return d;
    }

    /** The rdma_conn_param at {@code offset} of {@code s}, private data copied. */
    static ConnParam connParam(MemorySegment s, long offset) {
        return new ConnParam().privateData(bytes(s.get(ADDRESS, offset + CP_PRIVATE_DATA),
                        u8(s, offset + CP_PRIVATE_DATA_LEN)))
                .responderResources(u8(s, offset + CP_RESPONDER_RESOURCES))
                .initiatorDepth(u8(s, offset + CP_INITIATOR_DEPTH))
                .flowControl(u8(s, offset + CP_FLOW_CONTROL) != 0)
                .retryCount(u8(s, offset + CP_RETRY_COUNT) & 7).rnrRetryCount(u8(s, offset + CP_RNR_RETRY_COUNT) & 7)
                .srq(u8(s, offset + CP_SRQ) != 0).qpNum(s.get(JAVA_INT, offset + CP_QP_NUM) & 0xFFFFFF);
    }

    /** The rdma_ud_param at {@code offset} of {@code s}, private data and address copied. */
    static UdParam udParam(MemorySegment s, long offset) {
        return new UdParam(s.get(JAVA_INT, offset + UD_QP_NUM) & 0xFFFFFF, s.get(JAVA_INT, offset + UD_QKEY),
                AttrCodec.readAh(s, offset + UD_AH_ATTR, new AhAttr()),
                bytes(s.get(ADDRESS, offset + UD_PRIVATE_DATA), u8(s, offset + UD_PRIVATE_DATA_LEN)));
    }

    /** The type of the rdma_cm_event {@code ev}. */
    static CmEventType type(MemorySegment ev) {
        int code = ev.get(JAVA_INT, EV_EVENT);
        CmEventType[] all = CmEventType.values();
        if (code < 0 || code >= all.length) {
            throw SelfCheck.mismatch("rdma_cm_event.event is " + code + ", which rdma_cma.h does not define");
        }
        return all[code];
    }

    /** Whether an event of {@code type} carries connection (or UD) parameters librdmacm filled in. */
    static boolean carriesParam(CmEventType type, boolean ud) {
        return switch (type) {
            case CONNECT_REQUEST, ESTABLISHED, REJECTED -> true;
            case CONNECT_RESPONSE, DISCONNECTED -> !ud;
            default -> false;
        };
    }

    /** {@code length} bytes at {@code p} (empty for NULL or 0). */
    static byte[] bytes(MemorySegment p, int length) {
        if (p.address() == 0 || length == 0) {
            return new byte[0];
        }
        return p.reinterpret(length).toArray(JAVA_BYTE);
    }

    private static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }
}

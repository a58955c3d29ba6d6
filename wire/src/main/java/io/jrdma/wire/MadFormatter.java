package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * The {@code cm[...]} / {@code mad[...]} part of a {@link PacketFormatter} line: a summary of the MAD a UD SEND to
 * QP 1 carries, for example
 * {@code cm[REQ tid=0x00000002904d3e36 comm=0x363e4d90 sid=0x0000000001061c06(TCP:7174) qpn=0x00001b psn=5881406
 * mtu=3 cma=10.77.0.12:59765>10.77.0.11 pd=36]}. {@code pd} is the private data's length up to its last non-zero
 * byte (the CM carries no length; the rdma_cm header counts for REQ and SIDR_REQ).
 */
final class MadFormatter {
    private MadFormatter() {
    }

    /** Appends the summary of the 256-byte MAD at {@code at}. */
    static void append(MemorySegment s, long at, StringBuilder out) {
        if (!Mad.isCm(s, at)) {
            out.append(" mad[class=0x");
            PacketFormatter.hex(out, Mad.mgmtClass(s, at), 2);
            out.append(" method=0x");
            PacketFormatter.hex(out, Mad.method(s, at), 2);
            out.append(" attr=0x");
            PacketFormatter.hex(out, Mad.attributeId(s, at), 4);
            tid(s, at, out);
            out.append(']');
            return;
        }
        int attr = Mad.attributeId(s, at);
        String name = CmAttributeId.name(attr);
        out.append(" cm[");
        if (name == null) {
            out.append("attr=0x");
            PacketFormatter.hex(out, attr, 4);
        } else {
            out.append(name);
        }
        if (Mad.method(s, at) != Mad.METHOD_SEND) {
            out.append(" method=0x");
            PacketFormatter.hex(out, Mad.method(s, at), 2);
        }
        if (Mad.classVersion(s, at) != Mad.CM_CLASS_VERSION) {
            out.append(" version=").append(Mad.classVersion(s, at));
        }
        if (Mad.status(s, at) != 0) {
            out.append(" status=0x");
            PacketFormatter.hex(out, Mad.status(s, at), 4);
        }
        tid(s, at, out);
        switch (attr) {
            case CmAttributeId.REQ -> req(s, at, out);
            case CmAttributeId.REP -> {
                comm(s, at, out);
                qpn(" qpn=0x", CmRep.localQpn(s, at), out);
                out.append(" psn=").append(CmRep.startingPsn(s, at));
                privateData(s, at + CmRep.PRIVATE_DATA, CmRep.PRIVATE_DATA_LENGTH, out);
            }
            case CmAttributeId.RTU -> {
                comm(s, at, out);
                privateData(s, at + CmRtu.PRIVATE_DATA, CmRtu.PRIVATE_DATA_LENGTH, out);
            }
            case CmAttributeId.REJ -> rej(s, at, out);
            case CmAttributeId.MRA -> {
                comm(s, at, out);
                out.append(" msg=").append(message(CmMra.messageMraed(s, at)))
                        .append(" timeout=").append(CmMra.serviceTimeout(s, at));
                privateData(s, at + CmMra.PRIVATE_DATA, CmMra.PRIVATE_DATA_LENGTH, out);
            }
            case CmAttributeId.DREQ -> {
                comm(s, at, out);
                qpn(" remote_qpn=0x", CmDreq.remoteQpnEecn(s, at), out);
                privateData(s, at + CmDreq.PRIVATE_DATA, CmDreq.PRIVATE_DATA_LENGTH, out);
            }
            case CmAttributeId.DREP -> {
                comm(s, at, out);
                privateData(s, at + CmDrep.PRIVATE_DATA, CmDrep.PRIVATE_DATA_LENGTH, out);
            }
            case CmAttributeId.SIDR_REQ -> {
                out.append(" req=0x");
                PacketFormatter.hex(out, CmSidrReq.requestId(s, at), 8);
                sid(CmSidrReq.serviceId(s, at), out);
                cma(s, at + CmSidrReq.PRIVATE_DATA, out);
                privateData(s, at + CmSidrReq.PRIVATE_DATA, CmSidrReq.PRIVATE_DATA_LENGTH, out);
            }
            case CmAttributeId.SIDR_REP -> sidrRep(s, at, out);
            default -> {
            }
        }
        out.append(']');
    }

    private static void req(MemorySegment s, long at, StringBuilder out) {
        out.append(" comm=0x");
        PacketFormatter.hex(out, CmReq.localCommId(s, at), 8);
        sid(CmReq.serviceId(s, at), out);
        qpn(" qpn=0x", CmReq.localQpn(s, at), out);
        out.append(" psn=").append(CmReq.startingPsn(s, at))
                .append(" mtu=").append(CmReq.pathPacketPayloadMtu(s, at));
        if (CmReq.transportServiceType(s, at) != CmReq.TRANSPORT_RC) {
            out.append(" transport=").append(CmReq.transportServiceType(s, at));
        }
        cma(s, at + CmReq.PRIVATE_DATA, out);
        privateData(s, at + CmReq.PRIVATE_DATA, CmReq.PRIVATE_DATA_LENGTH, out);
    }

    private static void rej(MemorySegment s, long at, StringBuilder out) {
        comm(s, at, out);
        int code = CmRej.reason(s, at);
        CmRejectReason reason = CmRejectReason.of(code);
        out.append(" reason=");
        if (reason != null) {
            out.append(reason.name()).append('(').append(code).append(')');
        } else {
            out.append(code);
        }
        out.append(" msg=").append(message(CmRej.messageRejected(s, at)));
        if (CmRej.rejectedInfoLength(s, at) != 0) {
            out.append(" ari=").append(CmRej.rejectedInfoLength(s, at));
        }
        privateData(s, at + CmRej.PRIVATE_DATA, CmRej.PRIVATE_DATA_LENGTH, out);
    }

    private static void sidrRep(MemorySegment s, long at, StringBuilder out) {
        out.append(" req=0x");
        PacketFormatter.hex(out, CmSidrRep.requestId(s, at), 8);
        int code = CmSidrRep.status(s, at);
        CmSidrStatus status = CmSidrStatus.of(code);
        out.append(" status=");
        if (status != null) {
            out.append(status.name());
        } else {
            out.append(code);
        }
        qpn(" qpn=0x", CmSidrRep.qpn(s, at), out);
        out.append(" qkey=0x");
        PacketFormatter.hex(out, CmSidrRep.qkey(s, at), 8);
        sid(CmSidrRep.serviceId(s, at), out);
        privateData(s, at + CmSidrRep.PRIVATE_DATA, CmSidrRep.PRIVATE_DATA_LENGTH, out);
    }

    private static void tid(MemorySegment s, long at, StringBuilder out) {
        out.append(" tid=0x");
        PacketFormatter.hex(out, Mad.transactionId(s, at), 16);
    }

    /** Local and remote comm ids: at the same offsets in REP, RTU, REJ, MRA, DREQ and DREP. */
    private static void comm(MemorySegment s, long at, StringBuilder out) {
        out.append(" comm=0x");
        PacketFormatter.hex(out, CmRtu.localCommId(s, at), 8);
        out.append(" remote=0x");
        PacketFormatter.hex(out, CmRtu.remoteCommId(s, at), 8);
    }

    private static void qpn(String label, int qpn, StringBuilder out) {
        out.append(label);
        PacketFormatter.hex(out, qpn, 6);
    }

    private static void sid(long sid, StringBuilder out) {
        out.append(" sid=0x");
        PacketFormatter.hex(out, sid, 16);
        if (ServiceId.isRdmaCm(sid)) {
            String ps = switch (ServiceId.portSpace(sid)) {
                case ServiceId.PS_TCP -> "TCP";
                case ServiceId.PS_UDP -> "UDP";
                case ServiceId.PS_IB -> "IB";
                case ServiceId.PS_IPOIB -> "IPOIB";
                default -> null;
            };
            if (ps != null) {
                out.append('(').append(ps).append(':').append(ServiceId.port(sid)).append(')');
            }
        }
    }

    /** The rdma_cm header's addresses, when the private data starts with a version-0 IPv4 one. */
    private static void cma(MemorySegment s, long h, StringBuilder out) {
        if (CmaHeader.cmaVersion(s, h) != CmaHeader.VERSION || CmaHeader.ipVersion(s, h) != 4) {
            return;
        }
        out.append(" cma=");
        ipv4(CmaHeader.srcIpv4(s, h), out);
        out.append(':').append(CmaHeader.port(s, h)).append('>');
        ipv4(CmaHeader.dstIpv4(s, h), out);
    }

    private static void ipv4(int ip, StringBuilder out) {
        out.append(ip >>> 24).append('.').append(ip >>> 16 & 0xFF).append('.').append(ip >>> 8 & 0xFF).append('.')
                .append(ip & 0xFF);
    }

    private static void privateData(MemorySegment s, long at, int length, StringBuilder out) {
        int used = length;
        while (used > 0 && s.get(Layouts.BYTE, at + used - 1) == 0) {
            used--;
        }
        out.append(" pd=").append(used);
    }

    private static String message(int code) {
        return switch (code) {
            case CmRej.MESSAGE_REQ -> "REQ";
            case CmRej.MESSAGE_REP -> "REP";
            case CmRej.MESSAGE_OTHER -> "OTHER";
            default -> "3";
        };
    }
}

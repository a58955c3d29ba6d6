package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.WrStructs.WC;
import static io.jrdma.ibverbs.WrStructs.WC_BYTE_LEN;
import static io.jrdma.ibverbs.WrStructs.WC_DLID_PATH_BITS;
import static io.jrdma.ibverbs.WrStructs.WC_IMM_DATA;
import static io.jrdma.ibverbs.WrStructs.WC_INVALIDATED_RKEY;
import static io.jrdma.ibverbs.WrStructs.WC_OPCODE;
import static io.jrdma.ibverbs.WrStructs.WC_PKEY_INDEX;
import static io.jrdma.ibverbs.WrStructs.WC_QP_NUM;
import static io.jrdma.ibverbs.WrStructs.WC_SL;
import static io.jrdma.ibverbs.WrStructs.WC_SLID;
import static io.jrdma.ibverbs.WrStructs.WC_SRC_QP;
import static io.jrdma.ibverbs.WrStructs.WC_STATUS;
import static io.jrdma.ibverbs.WrStructs.WC_VENDOR_ERR;
import static io.jrdma.ibverbs.WrStructs.WC_WC_FLAGS;
import static io.jrdma.ibverbs.WrStructs.WC_WR_ID;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;

/**
 * Fills a {@link WorkCompletion} from a native struct ibv_wc, allocating nothing: status and opcode through
 * code-indexed tables (the codes are libibverbs'), imm_data read as the big-endian value it is (__be32), and the
 * imm_data/invalidated_rkey union split by wc_flags.
 */
final class WcReader {

    private static final long SIZE = WC.byteSize();
    private static final WcStatus[] STATUS = WcStatus.values();
    private static final WcOpcode[] OPCODE = new WcOpcode[256];

    static {
        for (WcOpcode o : WcOpcode.values()) {
            OPCODE[o.code()] = o;
        }
    }

    private WcReader() {
    }

    /** Fills {@code wc} from entry {@code index} of the ibv_wc array {@code wcs}; returns it. */
    static WorkCompletion read(MemorySegment wcs, int index, WorkCompletion wc) {
        long at = index * SIZE;
        int statusCode = wcs.get(JAVA_INT, at + WC_STATUS);
        // IBV_WC_TM_ERR and IBV_WC_TM_RNDV_INCOMPLETE (tag matching) are not offered: a general error
        WcStatus status = statusCode >= 0 && statusCode < STATUS.length ? STATUS[statusCode] : WcStatus.GENERAL_ERR;
        int opcodeCode = wcs.get(JAVA_INT, at + WC_OPCODE);
        WcOpcode opcode = opcodeCode >= 0 && opcodeCode < OPCODE.length ? OPCODE[opcodeCode] : null;
        if (opcode == null) {
            if (status == WcStatus.SUCCESS) {
                throw new IllegalStateException("ibv_poll_cq returned opcode " + opcodeCode
                        + ", which jrdma never posts (TSO, tag matching or a driver opcode)");
            }
            opcode = WcOpcode.SEND; // undefined for an error completion, as in libibverbs
        }
        int flags = wcs.get(JAVA_INT, at + WC_WC_FLAGS);
        int imm = (flags & WcFlags.WITH_IMM) != 0 ? Integer.reverseBytes(wcs.get(JAVA_INT, at + WC_IMM_DATA)) : 0;
        int invalidated = (flags & WcFlags.WITH_INV) != 0 ? wcs.get(JAVA_INT, at + WC_INVALIDATED_RKEY) : 0;
        return wc.fill(wcs.get(JAVA_LONG, at + WC_WR_ID), status, opcode, wcs.get(JAVA_INT, at + WC_BYTE_LEN), imm,
                        flags, wcs.get(JAVA_INT, at + WC_QP_NUM), wcs.get(JAVA_INT, at + WC_SRC_QP))
                .vendorErr(wcs.get(JAVA_INT, at + WC_VENDOR_ERR))
                .invalidatedRkey(invalidated)
                .pkeyIndex(Short.toUnsignedInt(wcs.get(JAVA_SHORT, at + WC_PKEY_INDEX)))
                .slid(Short.toUnsignedInt(wcs.get(JAVA_SHORT, at + WC_SLID)))
                .sl(Byte.toUnsignedInt(wcs.get(JAVA_BYTE, at + WC_SL)))
                .dlidPathBits(Byte.toUnsignedInt(wcs.get(JAVA_BYTE, at + WC_DLID_PATH_BITS)));
    }
}

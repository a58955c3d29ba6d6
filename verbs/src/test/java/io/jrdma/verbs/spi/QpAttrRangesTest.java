package io.jrdma.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.VerbsException;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class QpAttrRangesTest {

    private static void refused(String message, Runnable check) {
        VerbsException e = assertThrows(VerbsException.class, check::run);
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(message, e.reason());
    }

    private static void refused(String message, QpAttrMask bit, Consumer<QpAttr> set) {
        QpAttr a = new QpAttr();
        set.accept(a);
        refused(message, () -> QpAttrRanges.check(a, EnumSet.of(bit), 16, 4));
    }

    @Test
    void rangeNamesTheFieldAndTheBounds() {
        assertDoesNotThrow(() -> QpAttrRanges.range(0, 0, 5, "x"));
        assertDoesNotThrow(() -> QpAttrRanges.range(5, 0, 5, "x"));
        refused("x 6 is out of range [0, 5]", () -> QpAttrRanges.range(6, 0, 5, "x"));
        refused("x -1 is out of range [0, 5]", () -> QpAttrRanges.range(-1, 0, 5, "x"));
    }

    @Test
    void badValuesAreRefusedNamingTheField() {
        refused("timeout 32 is out of range [0, 31]", QpAttrMask.TIMEOUT, a -> a.timeout(32));
        refused("timeout -1 is out of range [0, 31]", QpAttrMask.TIMEOUT, a -> a.timeout(-1));
        refused("retry_cnt 8 is out of range [0, 7]", QpAttrMask.RETRY_CNT, a -> a.retryCnt(8));
        refused("rnr_retry 8 is out of range [0, 7]", QpAttrMask.RNR_RETRY, a -> a.rnrRetry(8));
        refused("min_rnr_timer 32 is out of range [0, 31]", QpAttrMask.MIN_RNR_TIMER, a -> a.minRnrTimer(32));
        refused("max_rd_atomic 17 is out of range [0, 16]", QpAttrMask.MAX_QP_RD_ATOMIC, a -> a.maxRdAtomic(17));
        refused("max_dest_rd_atomic 5 is out of range [0, 4]", QpAttrMask.MAX_DEST_RD_ATOMIC,
                a -> a.maxDestRdAtomic(5));
        refused("path_mtu is missing", QpAttrMask.PATH_MTU, a -> a.pathMtu(null));
    }

    @Test
    void theDepthsAreU8WhateverTheDeviceSays() {
        QpAttr a = new QpAttr().maxRdAtomic(256).maxDestRdAtomic(255);
        refused("max_rd_atomic 256 is out of range [0, 255]",
                () -> QpAttrRanges.check(a, EnumSet.of(QpAttrMask.MAX_QP_RD_ATOMIC), 1000, 1000));
        assertDoesNotThrow(() -> QpAttrRanges.check(a, EnumSet.of(QpAttrMask.MAX_DEST_RD_ATOMIC), 1000, 1000));
    }

    @Test
    void edgeValuesAreAccepted() {
        QpAttr hi = new QpAttr().pathMtu(Mtu.MTU_4096).timeout(31).retryCnt(7).rnrRetry(7).minRnrTimer(31)
                .maxRdAtomic(16).maxDestRdAtomic(4);
        QpAttr lo = new QpAttr().pathMtu(Mtu.MTU_256).timeout(0).retryCnt(0).rnrRetry(0).minRnrTimer(0)
                .maxRdAtomic(0).maxDestRdAtomic(0);
        Set<QpAttrMask> all = EnumSet.allOf(QpAttrMask.class);
        assertDoesNotThrow(() -> QpAttrRanges.check(hi, all, 16, 4));
        assertDoesNotThrow(() -> QpAttrRanges.check(lo, all, 16, 4));
    }

    @Test
    void attributesNotNamedAreNotChecked() {
        QpAttr bad = new QpAttr().timeout(99).retryCnt(99).rnrRetry(99).minRnrTimer(99).maxRdAtomic(99)
                .maxDestRdAtomic(99);
        assertDoesNotThrow(() -> QpAttrRanges.check(bad, EnumSet.noneOf(QpAttrMask.class), 0, 0));
    }

    @Test
    void capsAgainstTheLimits() {
        assertDoesNotThrow(() -> QpAttrRanges.caps(new QpCap(8, 8, 2, 2, 64), false, 8, 2, 64));
        refused("max_send_wr 9 is out of range [0, 8]",
                () -> QpAttrRanges.caps(new QpCap(9, 8, 2, 2, 64), false, 8, 2, 64));
        refused("max_send_sge 3 is out of range [0, 2]",
                () -> QpAttrRanges.caps(new QpCap(8, 8, 3, 2, 64), false, 8, 2, 64));
        refused("max_recv_wr 9 is out of range [0, 8]",
                () -> QpAttrRanges.caps(new QpCap(8, 9, 2, 2, 64), false, 8, 2, 64));
        refused("max_recv_sge 3 is out of range [0, 2]",
                () -> QpAttrRanges.caps(new QpCap(8, 8, 2, 3, 64), false, 8, 2, 64));
        refused("max_inline_data 65 is out of range [0, 64]",
                () -> QpAttrRanges.caps(new QpCap(8, 8, 2, 2, 65), false, 8, 2, 64));
        // with an SRQ the receive caps are ignored
        assertDoesNotThrow(() -> QpAttrRanges.caps(new QpCap(8, 99, 2, 99, 64), true, 8, 2, 64));
    }
}

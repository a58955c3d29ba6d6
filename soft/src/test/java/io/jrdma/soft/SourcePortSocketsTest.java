package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.link.NativeLink;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import java.io.File;
import java.net.InetAddress;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Each QP sends from a UDP source port of its own (rxe's rule), through a socket bound to that port. The socket
 * closes with the last QP using it: a device whose QPs come and go (a server with connection churn) keeps a few
 * sockets, not one per QP it ever had, on both links.
 */
class SourcePortSocketsTest {

    @Test
    void nativeLinkClosesTheSocketsOfDestroyedQps() throws Exception {
        churn("127.0.214.1", false);
    }

    @Test
    void nioLinkClosesTheSocketsOfDestroyedQps() throws Exception {
        churn("127.0.214.2", true);
    }

    private static void churn(String ip, boolean nio) throws Exception {
        SoftDevice device = SoftDevice.builder().name("churn" + (nio ? "n" : "a")).address(ip).allowNative(!nio)
                .build();
        try (SoftContext ctx = device.open()) {
            assumeTrue(nio || ctx.link instanceof NativeLink, "no native link in this process");
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(16);
            long before = openFds();
            assumeTrue(before > 0, "no /proc/self/fd");
            Gid peer = Gid.fromInet(InetAddress.getByName(ip));
            for (int i = 0; i < 200; i++) {
                QpType type = i % 2 == 0 ? QpType.UD : QpType.RC;
                try (QueuePair qp = pd.createQp(new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq)
                        .cap(new QpCap(1, 1, 1, 1, 0)))) {
                    if (type == QpType.RC) { // RTR with an address: an RC QP's port follows its flow label
                        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                                        QpAttrMask.ACCESS_FLAGS));
                        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(17 + i)
                                .rqPsn(0).maxDestRdAtomic(0).minRnrTimer(12);
                        rtr.ahAttr().copyFrom(new AhAttr().grh(peer, 1, 64, 0, 0).portNum(1));
                        qp.modify(rtr, EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC,
                                QpAttrMask.MIN_RNR_TIMER));
                    }
                }
            }
            long after = openFds();
            assertTrue(after <= before + 4, "file descriptors " + before + " -> " + after + " after 200 QPs");
            cq.close();
            pd.close();
        }
    }

    private static long openFds() {
        File[] fds = new File("/proc/self/fd").listFiles();
        return fds == null ? 0 : fds.length;
    }
}

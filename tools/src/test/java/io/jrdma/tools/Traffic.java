package io.jrdma.tools;

import io.jrdma.examples.RcPeer;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/** Two connected soft devices with dedicated engines in this process, and RDMA WRITEs between them. */
final class Traffic implements AutoCloseable {

    static final int BUFFER = 256 * 1024;

    final RcPeer a;
    final RcPeer b;
    private final WorkCompletion wc = new WorkCompletion();

    Traffic(String nameA, String addressA, String nameB, String addressB) {
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        a = RcPeer.open(SoftDevice.builder().name(nameA).address(addressA).threading(Threading.DEDICATED).build(),
                BUFFER, access, access);
        RcPeer pb;
        try {
            pb = RcPeer.open(SoftDevice.builder().name(nameB).address(addressB).threading(Threading.DEDICATED)
                    .build(), BUFFER, access, access);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        b = pb;
        a.connect(a.endpoint(1), b.endpoint(2), Mtu.MTU_1024);
        b.connect(b.endpoint(2), a.endpoint(1), Mtu.MTU_1024);
    }

    /** One signaled RDMA WRITE of {@code bytes} from a to b, waited for. */
    void write(int bytes) throws TimeoutException {
        a.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.mr().address(), bytes, a.mr().lkey())).remote(b.mr().address(), b.mr().rkey()));
        a.awaitSuccess(wc, Duration.ofSeconds(10));
    }

    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }
}

package io.jrdma.soft;

import static io.jrdma.soft.UnreliablePeer.await;
import static io.jrdma.soft.UnreliablePeer.awaitCounter;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Memory windows on UC (rxe's wr_opcode_info gives BIND_MW to RC and UC): a type 1 window bound with ibv_bind_mw on
 * a UC QP completes like on RC, and a UC RDMA WRITE through its rkey lands in the window although the region
 * grants no remote rights. (The unified requester runs UC local operations as RC's; the UC copy it replaced
 * refused them inside the engine.)
 */
class UcMemoryWindowTest {

    private static final int WINDOW = 4096;

    @Test
    void shouldBindAType1WindowOnUcAndWriteThroughIt() {
        try (UnreliablePeer a = new UnreliablePeer("127.0.94.1", QpType.UC, 1 << 16, 0);
                UnreliablePeer b = new UnreliablePeer("127.0.94.2", QpType.UC, 1 << 16, 0)) {
            a.connectUc(b, Mtu.MTU_1024, 0x10, Access.REMOTE_WRITE);
            b.connectUc(a, Mtu.MTU_1024, 0x10, Access.REMOTE_WRITE);
            MemorySegment target = b.arena.allocate(3 * WINDOW, 4096);
            MemoryRegion bindable = b.later(b.pd.registerMemory(target, Access.LOCAL_WRITE | Access.MW_BIND));
            MemoryWindow mw = b.later(b.pd.allocMw(MwType.TYPE_1));
            MwBind bind = new MwBind().wrId(77).sendFlags(SendFlags.SIGNALED);
            bind.bindInfo().mr(bindable).addr(bindable.address() + WINDOW).length(WINDOW)
                    .mwAccessFlags(Access.REMOTE_WRITE);
            int rkey = b.qp.bindMw(mw, bind);
            WorkCompletion bound = await(b.cq, a, b);
            assertEquals(77, bound.wrId());
            assertEquals(WcStatus.SUCCESS, bound.status(), bound.toString());
            assertEquals(WcOpcode.BIND_MW, bound.opcode());

            for (int i = 0; i < 2500; i++) {
                a.buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            long before = b.count(Counter.RCVD_PKTS);
            a.qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(a.sge(0, 2500)).remote(bindable.address() + WINDOW + 100, rkey));
            assertEquals(WcStatus.SUCCESS, await(a.cq, a, b).status());
            awaitCounter(b, Counter.RCVD_PKTS, before + 3, a, b); // 2,500 bytes at MTU 1024: three packets
            assertEquals(-1, a.buf.asSlice(0, 2500).mismatch(target.asSlice(WINDOW + 100, 2500)),
                    "the UC WRITE landed in the window");
        }
    }
}

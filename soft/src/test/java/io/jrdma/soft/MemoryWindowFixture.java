package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the memory window tests share (rxe_mw.c): a connected pair, peer a the requester and peer b owning the
 * windows over a region with MW_BIND and no remote rights of its own; binding type 1 and type 2 windows, remote
 * access through them and its violations. The tests are {@link MemoryWindowType1Test},
 * {@link MemoryWindowType2Test} and {@link MemoryWindowPdTest}.
 */
abstract class MemoryWindowFixture {

    static final int WINDOW_OFFSET = 4096;
    static final int WINDOW_LENGTH = 4096;
    static final int RW = Access.REMOTE_WRITE | Access.REMOTE_READ;

    Pair pair;
    Peer a;
    Peer b;
    /** b's region that windows are bound to: no remote rights of its own, only MW_BIND. */
    MemoryRegion bindable;
    MemorySegment bindableBuf;
    final List<AutoCloseable> extra = new ArrayList<>();

    @BeforeEach
    void connect() {
        pair = Pair.invoker("127.0.35.1", "127.0.35.2", 1 << 16);
        a = pair.a;
        b = pair.b;
        bindableBuf = b.arena.allocate(3 * 4096, 4096);
        bindable = b.pd.registerMemory(bindableBuf, Access.LOCAL_WRITE | Access.MW_BIND);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = extra.size() - 1; i >= 0; i--) {
            extra.get(i).close();
        }
        bindable.close();
        pair.close();
    }

    <T extends AutoCloseable> T later(T resource) {
        extra.add(resource);
        return resource;
    }

    long windowAddr() {
        return bindable.address() + WINDOW_OFFSET;
    }

    /** Binds a type 1 window of b over the window range with {@code rights}; waits for the bind's completion. */
    MemoryWindow boundType1(int rights) {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_1));
        int before = mw.rkey();
        MwBind bind = new MwBind().wrId(501).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(WINDOW_LENGTH).mwAccessFlags(rights);
        int rkey = b.qp.bindMw(mw, bind);
        assertEquals(SendWr.incRkey(before), rkey, "ibv_bind_mw increments the key byte");
        assertEquals(rkey, mw.rkey());
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(501, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        return mw;
    }

    /** Binds a type 2 window of b through b's QP with key byte {@code keyByte}; waits for the completion. */
    MemoryWindow boundType2(int rights, int keyByte) {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_2));
        bindType2(mw, rights, keyByte, WcStatus.SUCCESS);
        return mw;
    }

    void bindType2(MemoryWindow mw, int rights, int keyByte, WcStatus expected) {
        SendWr wr = new SendWr().wrId(601).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw)
                .bindRkey((mw.rkey() & ~0xFF) | keyByte);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(WINDOW_LENGTH).mwAccessFlags(rights);
        b.qp.postSend(wr);
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(601, wc.wrId());
        assertEquals(expected, wc.status(), wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
    }

    SendWr write(long remote, int rkey, int len) {
        return new SendWr().opcode(WrOpcode.RDMA_WRITE).sg(new Sge(a.addr(0), len, a.mr.lkey()))
                .remote(remote, rkey).signaled(true);
    }

    SendWr read(long remote, int rkey, int len) {
        return new SendWr().opcode(WrOpcode.RDMA_READ).sg(new Sge(a.addr(8192), len, a.mr.lkey()))
                .remote(remote, rkey).signaled(true);
    }

    WorkCompletion run(SendWr wr) {
        a.qp.postSend(wr.wrId(11));
        WorkCompletion wc = pair.await(a.cq);
        assertEquals(11, wc.wrId());
        return wc;
    }

    /**
     * Posts {@code bad} and a SEND after it at a: the first fails with REM_ACCESS_ERR, the second is flushed, and
     * both QPs are in ERR (class C at the responder).
     */
    void assertRemoteAccessError(SendWr bad) {
        SendWr after = new SendWr().wrId(13).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(a.addr(0), 8, a.mr.lkey()));
        a.qp.postSend(bad.wrId(12).signaled(true).next(after));
        WorkCompletion first = pair.await(a.cq);
        assertEquals(12, first.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, first.status(), first.toString());
        WorkCompletion second = pair.await(a.cq);
        assertEquals(13, second.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, second.status());
        assertEquals(QpState.ERR, a.qp.state());
        long deadline = System.nanoTime() + Pair.WAIT_NS;
        while (b.qp.state() != QpState.ERR && System.nanoTime() < deadline) {
            pair.drive();
        }
        assertEquals(QpState.ERR, b.qp.state(), "the responder QP goes to ERR on a remote access error");
    }

    /** A bind that fails when it runs: MW_BIND_ERR, the QP in ERR, the next request flushed. */
    void assertBindError(SendWr bindWr) {
        SendWr after = new SendWr().wrId(702).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(b.addr(0), 8, b.mr.lkey()));
        b.qp.postSend(bindWr.wrId(701).signaled(true).next(after));
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(701, wc.wrId());
        assertEquals(WcStatus.MW_BIND_ERR, wc.status(), wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        WorkCompletion next = pair.await(b.cq);
        assertEquals(702, next.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, next.status());
        assertEquals(QpState.ERR, b.qp.state());
    }

    static void fill(MemorySegment seg, int seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7));
        }
    }
}

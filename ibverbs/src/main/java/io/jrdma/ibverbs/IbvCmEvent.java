package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.CmStructs.EV_PARAM;
import static io.jrdma.ibverbs.CmStructs.EV_STATUS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.MemorySegment;

/**
 * One rdma_cm_event, decoded when it is read (its parameters and private data copied, so they outlive the ack),
 * holding the native event until {@link #ack()} gives it back to librdmacm (rdma_ack_cm_event).
 */
final class IbvCmEvent implements CmEvent {

    final MemorySegment ptr;
    private final IbvEventChannel channel;
    private final CmEventType type;
    private final IbvCmId id;
    private final IbvCmId listenId;
    private final int status;
    private final ConnParam connParam;
    private final UdParam udParam;

    /** Decodes {@code ev} (a struct rdma_cm_event) about {@code id} (and {@code listenId}, or null). */
    IbvCmEvent(IbvEventChannel channel, MemorySegment ev, IbvCmId id, IbvCmId listenId) {
        this.channel = channel;
        this.ptr = ev;
        this.type = CmCodec.type(ev);
        this.id = id;
        this.listenId = listenId;
        this.status = ev.get(JAVA_INT, EV_STATUS);
        boolean ud = id.portSpace() == PortSpace.UDP;
        boolean param = CmCodec.carriesParam(type, ud);
        this.connParam = param && !ud ? CmCodec.connParam(ev, EV_PARAM) : null;
        this.udParam = param && ud ? CmCodec.udParam(ev, EV_PARAM) : null;
    }

    @Override
    public CmEventType type() {
        return type;
    }

    @Override
    public IbvCmId id() {
        return id;
    }

    @Override
    public IbvCmId listenId() {
        return listenId;
    }

    /** The id whose event count librdmacm raised for this event: the listener for a CONNECT_REQUEST. */
    IbvCmId counted() {
        return type == CmEventType.CONNECT_REQUEST && listenId != null ? listenId : id;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public ConnParam connParam() {
        return connParam == null ? null : new ConnParam(connParam);
    }

    @Override
    public UdParam udParam() {
        return udParam == null ? null : udParam.copy();
    }

    @Override
    public void ack() {
        if (!channel.ack(this)) {
            throw new VerbsException(Errno.EINVAL, type.eventName() + " is already acknowledged");
        }
    }

    @Override
    public void close() {
        channel.ack(this);
    }

    @Override
    public String toString() {
        return type.eventName() + "[status " + status + ", " + id + "]";
    }
}

package io.jrdma.soft.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;

/** One event of a {@link SoftEventChannel}; its id counts it from retrieval until it is acknowledged. */
final class SoftCmEvent implements CmEvent {

    private final CmEventType type;
    private final SoftCmId id;
    private final SoftCmId listenId;
    private final int status;
    private final ConnParam connParam;
    private final UdParam udParam;
    private boolean retrieved;
    private boolean acked;

    SoftCmEvent(CmEventType type, SoftCmId id, SoftCmId listenId, int status, ConnParam connParam,
            UdParam udParam) {
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.connParam = connParam;
        this.udParam = udParam;
    }

    @Override
    public CmEventType type() {
        return type;
    }

    @Override
    public CmId id() {
        return id;
    }

    SoftCmId softId() {
        return id;
    }

    @Override
    public CmId listenId() {
        return listenId;
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

    /** Hands the event to the application: its id (and listener) now wait for its ack; false if the id is gone. */
    boolean retrieve() {
        synchronized (this) {
            if (!id.eventRetrieved(this)) {
                return false;
            }
            retrieved = true;
            return true;
        }
    }

    @Override
    public void ack() {
        synchronized (this) {
            if (acked || !retrieved) {
                throw new VerbsException(Errno.EINVAL, "the event was already acknowledged");
            }
            acked = true;
        }
        id.eventAcked(this);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (acked) {
                return;
            }
        }
        ack();
    }

    @Override
    public String toString() {
        return type.eventName() + " (status " + status + ") on " + id;
    }
}

package io.jrdma.verbs;

import java.util.Objects;

/**
 * An address vector (ibv_ah_attr with its ibv_global_route): how to reach a remote port. On RoCE every address
 * is global: {@link #isGlobal()} must be set and {@link #dgid()} names the peer's GID (its IP address).
 * Mutable and reusable.
 */
public final class AhAttr {

    private static final AhAttr EMPTY = new AhAttr();

    private Gid dgid = Gid.ZERO;
    private int flowLabel;
    private int sgidIndex;
    private int hopLimit;
    private int trafficClass;
    private boolean isGlobal;
    private int dlid;
    private int sl;
    private int srcPathBits;
    private int staticRate;
    private int portNum;

    /** An empty address vector: not global, dgid {@link Gid#ZERO}, every number 0. */
    public AhAttr() {
    }

    /** The destination GID (ibv_ah_attr.grh.dgid). */
    public Gid dgid() {
        return dgid;
    }

    /** Sets the destination GID (grh.dgid); returns this. */
    public AhAttr dgid(Gid dgid) {
        this.dgid = Objects.requireNonNull(dgid, "dgid");
        return this;
    }

    /** The 20-bit IPv6 flow label (ibv_ah_attr.grh.flow_label). */
    public int flowLabel() {
        return flowLabel;
    }

    /** Sets the flow label (grh.flow_label); returns this. */
    public AhAttr flowLabel(int flowLabel) {
        this.flowLabel = flowLabel;
        return this;
    }

    /** The index of the source GID in the local port's GID table (ibv_ah_attr.grh.sgid_index). */
    public int sgidIndex() {
        return sgidIndex;
    }

    /** Sets the source GID index (grh.sgid_index); returns this. */
    public AhAttr sgidIndex(int sgidIndex) {
        this.sgidIndex = sgidIndex;
        return this;
    }

    /** The hop limit, the IP TTL on RoCEv2 (ibv_ah_attr.grh.hop_limit). */
    public int hopLimit() {
        return hopLimit;
    }

    /** Sets the hop limit (grh.hop_limit); returns this. */
    public AhAttr hopLimit(int hopLimit) {
        this.hopLimit = hopLimit;
        return this;
    }

    /** The traffic class, the IP DSCP/ECN byte on RoCEv2 (ibv_ah_attr.grh.traffic_class). */
    public int trafficClass() {
        return trafficClass;
    }

    /** Sets the traffic class (grh.traffic_class); returns this. */
    public AhAttr trafficClass(int trafficClass) {
        this.trafficClass = trafficClass;
        return this;
    }

    /** Whether the global route (GRH) fields count (ibv_ah_attr.is_global); required on RoCE. */
    public boolean isGlobal() {
        return isGlobal;
    }

    /** Sets whether the global route fields count (is_global); returns this. */
    public AhAttr isGlobal(boolean isGlobal) {
        this.isGlobal = isGlobal;
        return this;
    }

    /** Sets the global route and marks the address global; returns this. */
    public AhAttr grh(Gid dgid, int sgidIndex, int hopLimit, int trafficClass, int flowLabel) {
        dgid(dgid);
        this.sgidIndex = sgidIndex;
        this.hopLimit = hopLimit;
        this.trafficClass = trafficClass;
        this.flowLabel = flowLabel;
        this.isGlobal = true;
        return this;
    }

    /** The destination LID (ibv_ah_attr.dlid); unused on RoCE. */
    public int dlid() {
        return dlid;
    }

    /** Sets the destination LID (dlid); returns this. */
    public AhAttr dlid(int dlid) {
        this.dlid = dlid;
        return this;
    }

    /** The service level (ibv_ah_attr.sl). */
    public int sl() {
        return sl;
    }

    /** Sets the service level (sl); returns this. */
    public AhAttr sl(int sl) {
        this.sl = sl;
        return this;
    }

    /** The source path bits (ibv_ah_attr.src_path_bits). */
    public int srcPathBits() {
        return srcPathBits;
    }

    /** Sets the source path bits (src_path_bits); returns this. */
    public AhAttr srcPathBits(int srcPathBits) {
        this.srcPathBits = srcPathBits;
        return this;
    }

    /** The ibv_rate code limiting the injection rate, 0 for none (ibv_ah_attr.static_rate). */
    public int staticRate() {
        return staticRate;
    }

    /** Sets the static rate code (static_rate); returns this. */
    public AhAttr staticRate(int staticRate) {
        this.staticRate = staticRate;
        return this;
    }

    /** The local port to send from (ibv_ah_attr.port_num); ports count from 1. */
    public int portNum() {
        return portNum;
    }

    /** Sets the local port (port_num); returns this. */
    public AhAttr portNum(int portNum) {
        this.portNum = portNum;
        return this;
    }

    /** Copies every field of {@code other}; returns this. */
    public AhAttr copyFrom(AhAttr other) {
        dgid = other.dgid;
        flowLabel = other.flowLabel;
        sgidIndex = other.sgidIndex;
        hopLimit = other.hopLimit;
        trafficClass = other.trafficClass;
        isGlobal = other.isGlobal;
        dlid = other.dlid;
        sl = other.sl;
        srcPathBits = other.srcPathBits;
        staticRate = other.staticRate;
        portNum = other.portNum;
        return this;
    }

    /** Resets every field to its initial value; returns this. */
    public AhAttr reset() {
        return copyFrom(EMPTY);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("AhAttr{");
        if (isGlobal) {
            sb.append("dgid=").append(dgid).append(", sgidIndex=").append(sgidIndex).append(", hopLimit=")
                    .append(hopLimit).append(", trafficClass=").append(trafficClass).append(", flowLabel=")
                    .append(flowLabel).append(", ");
        }
        return sb.append("dlid=").append(dlid).append(", sl=").append(sl).append(", srcPathBits=").append(srcPathBits)
                .append(", staticRate=").append(staticRate).append(", portNum=").append(portNum).append('}')
                .toString();
    }
}

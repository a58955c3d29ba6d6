package io.jrdma.wire;

/** Attribute ids of the communication management class (IBA 16.7.2, the kernel's CM_*_ATTR_ID). */
public final class CmAttributeId {
    /** ClassPortInfo. */
    public static final int CLASS_PORT_INFO = 0x0001;
    /** ConnectRequest (REQ). */
    public static final int REQ = 0x0010;
    /** MessageReceiptAcknowledgement (MRA). */
    public static final int MRA = 0x0011;
    /** ConnectReject (REJ). */
    public static final int REJ = 0x0012;
    /** ConnectReply (REP). */
    public static final int REP = 0x0013;
    /** ReadyToUse (RTU). */
    public static final int RTU = 0x0014;
    /** DisconnectRequest (DREQ). */
    public static final int DREQ = 0x0015;
    /** DisconnectReply (DREP). */
    public static final int DREP = 0x0016;
    /** ServiceIDResolutionRequest (SIDR_REQ). */
    public static final int SIDR_REQ = 0x0017;
    /** ServiceIDResolutionResponse (SIDR_REP). */
    public static final int SIDR_REP = 0x0018;
    /** LoadAlternatePath (LAP). */
    public static final int LAP = 0x0019;
    /** AlternatePathResponse (APR). */
    public static final int APR = 0x001A;

    private static final String[] NAMES = {"REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP", "SIDR_REQ",
        "SIDR_REP", "LAP", "APR"};

    private CmAttributeId() {
    }

    /**
     * Short name of a CM attribute id.
     *
     * @param id attribute id
     * @return "REQ", "SIDR_REP", "ClassPortInfo" and so on, or null for an id the CM class does not define
     */
    public static String name(int id) {
        if (id == CLASS_PORT_INFO) {
            return "ClassPortInfo";
        }
        return id >= REQ && id <= APR ? NAMES[id - REQ] : null;
    }
}

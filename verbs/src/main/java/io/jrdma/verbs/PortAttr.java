package io.jrdma.verbs;

/**
 * A port's attributes (ibv_port_attr, from ibv_query_port).
 *
 * @param state        logical port state (state)
 * @param maxMtu       largest MTU the port supports (max_mtu)
 * @param activeMtu    MTU in use (active_mtu); on RoCE the link MTU less the headers, rounded down
 * @param gidTblLen    GID table length (gid_tbl_len)
 * @param portCapFlags ibv_port_cap_flags bits (port_cap_flags)
 * @param maxMsgSz     largest message in bytes (max_msg_sz)
 * @param pkeyTblLen   P_Key table length (pkey_tbl_len)
 * @param lid          base LID (lid); 0 on RoCE
 * @param smLid        subnet manager's LID (sm_lid)
 * @param lmc          LID mask control (lmc)
 * @param maxVlNum     number of virtual lanes (max_vl_num)
 * @param smSl         subnet manager's service level (sm_sl)
 * @param activeWidth  link width code (active_width: 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x)
 * @param activeSpeed  link speed code (active_speed)
 * @param physState    physical port state (phys_state: 5 = LinkUp, 3 = Disabled, ...)
 * @param linkLayer    link layer (link_layer)
 */
public record PortAttr(
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTblLen,
        int portCapFlags,
        long maxMsgSz,
        int pkeyTblLen,
        int lid,
        int smLid,
        int lmc,
        int maxVlNum,
        int smSl,
        int activeWidth,
        int activeSpeed,
        int physState,
        LinkLayer linkLayer) {
}

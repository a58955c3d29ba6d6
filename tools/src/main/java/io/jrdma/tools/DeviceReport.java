package io.jrdma.tools;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.VerbsException;
import java.util.List;
import java.util.Locale;

/**
 * Text reports about devices in the layouts of rdma-core's ibv_devices and ibv_devinfo (tabs included), so that
 * people and scripts used to those tools can read them. Fields the verbs API does not model are left out rather
 * than printed as zeros.
 */
public final class DeviceReport {

    private DeviceReport() {
    }

    /**
     * The device list as ibv_devices prints it: name and node GUID, one device a line, under a header. A name two
     * providers share (the kernel's rxe0 and the soft rxe0) is printed as {@code provider:name}, the selector that
     * picks that one ({@link io.jrdma.verbs.Verbs#device}).
     */
    public static String devices(List<? extends Device> devices) {
        StringBuilder sb = new StringBuilder();
        line(sb, "    %-16s\t   node GUID", "device");
        line(sb, "    %-16s\t----------------", "------");
        for (Device d : devices) {
            boolean shared = devices.stream().anyMatch(o -> o != d && o.name().equals(d.name()));
            line(sb, "    %-16s\t%016x", shared ? d.provider() + ":" + d.name() : d.name(), d.guid());
        }
        return sb.toString();
    }

    /** The device names as {@code ibv_devinfo -l} prints them. */
    public static String names(List<? extends Device> devices) {
        StringBuilder sb = new StringBuilder();
        line(sb, "%d HCA%s found:", devices.size(), devices.size() != 1 ? "s" : "");
        for (Device d : devices) {
            line(sb, "\t%s", d.name());
        }
        return sb.append('\n').toString();
    }

    /**
     * The attributes of an open device and of its ports as ibv_devinfo prints them; {@code port} 0 means every
     * port, {@code verbose} adds the device limits, the port details and the GID table.
     *
     * @throws VerbsException when {@code port} is not a port of the device
     */
    public static String devinfo(Context ctx, int port, boolean verbose) {
        DeviceAttr a = ctx.queryDevice();
        if (port < 0 || port > a.physPortCnt()) {
            throw new VerbsException(Errno.EINVAL, "device " + ctx.device().name()
                    + " has no port " + port + " (it has " + a.physPortCnt() + ")");
        }
        StringBuilder sb = new StringBuilder(2048);
        line(sb, "hca_id:\t%s", ctx.device().name());
        line(sb, "\ttransport:\t\t\t%s (%d)", "InfiniBand", 0); // rxe reports IBV_TRANSPORT_IB too
        if (!a.fwVer().isEmpty()) {
            line(sb, "\tfw_ver:\t\t\t\t%s", a.fwVer());
        }
        line(sb, "\tnode_guid:\t\t\t%s", guid(a.nodeGuid()));
        line(sb, "\tsys_image_guid:\t\t\t%s", guid(a.sysImageGuid()));
        line(sb, "\tvendor_id:\t\t\t0x%04x", a.vendorId());
        line(sb, "\tvendor_part_id:\t\t\t%d", a.vendorPartId());
        line(sb, "\thw_ver:\t\t\t\t0x%X", a.hwVer());
        line(sb, "\tphys_port_cnt:\t\t\t%d", a.physPortCnt());
        if (verbose) {
            limits(sb, a);
        }
        for (int p = 1; p <= a.physPortCnt(); p++) {
            if (port == 0 || port == p) {
                port(sb, ctx, p, verbose);
            }
        }
        return sb.toString();
    }

    private static void limits(StringBuilder sb, DeviceAttr a) {
        line(sb, "\tmax_mr_size:\t\t\t0x%x", a.maxMrSize());
        line(sb, "\tpage_size_cap:\t\t\t0x%x", a.pageSizeCap());
        line(sb, "\tmax_qp:\t\t\t\t%d", a.maxQp());
        line(sb, "\tmax_qp_wr:\t\t\t%d", a.maxQpWr());
        line(sb, "\tdevice_cap_flags:\t\t0x%08x", a.deviceCapFlags());
        line(sb, "\tmax_sge:\t\t\t%d", a.maxSge());
        line(sb, "\tmax_sge_rd:\t\t\t%d", a.maxSgeRd());
        line(sb, "\tmax_cq:\t\t\t\t%d", a.maxCq());
        line(sb, "\tmax_cqe:\t\t\t%d", a.maxCqe());
        line(sb, "\tmax_mr:\t\t\t\t%d", a.maxMr());
        line(sb, "\tmax_pd:\t\t\t\t%d", a.maxPd());
        line(sb, "\tmax_qp_rd_atom:\t\t\t%d", a.maxQpRdAtom());
        line(sb, "\tmax_res_rd_atom:\t\t%d", a.maxResRdAtom());
        line(sb, "\tmax_qp_init_rd_atom:\t\t%d", a.maxQpInitRdAtom());
        line(sb, "\tatomic_cap:\t\t\tATOMIC_%s (%d)", a.atomicCap().name(), a.atomicCap().code());
        line(sb, "\tmax_mw:\t\t\t\t%d", a.maxMw());
        line(sb, "\tmax_ah:\t\t\t\t%d", a.maxAh());
        line(sb, "\tmax_srq:\t\t\t%d", a.maxSrq());
        if (a.maxSrq() != 0) {
            line(sb, "\tmax_srq_wr:\t\t\t%d", a.maxSrqWr());
            line(sb, "\tmax_srq_sge:\t\t\t%d", a.maxSrqSge());
        }
        line(sb, "\tmax_pkeys:\t\t\t%d", a.maxPkeys());
        line(sb, "\tlocal_ca_ack_delay:\t\t%d", a.localCaAckDelay());
    }

    private static void port(StringBuilder sb, Context ctx, int port, boolean verbose) {
        PortAttr p = ctx.queryPort(port);
        line(sb, "\t\tport:\t%d", port);
        line(sb, "\t\t\tstate:\t\t\t%s (%d)", portState(p), p.state().code());
        line(sb, "\t\t\tmax_mtu:\t\t%d (%d)", p.maxMtu().bytes(), p.maxMtu().code());
        line(sb, "\t\t\tactive_mtu:\t\t%d (%d)", p.activeMtu().bytes(), p.activeMtu().code());
        line(sb, "\t\t\tsm_lid:\t\t\t%d", p.smLid());
        line(sb, "\t\t\tport_lid:\t\t%d", p.lid());
        line(sb, "\t\t\tport_lmc:\t\t0x%02x", p.lmc());
        line(sb, "\t\t\tlink_layer:\t\t%s", p.linkLayer() == LinkLayer.ETHERNET ? "Ethernet" : "InfiniBand");
        if (verbose) {
            line(sb, "\t\t\tmax_msg_sz:\t\t0x%x", p.maxMsgSz());
            line(sb, "\t\t\tport_cap_flags:\t\t0x%08x", p.portCapFlags());
            line(sb, "\t\t\tmax_vl_num:\t\t%s (%d)", vlNum(p.maxVlNum()), p.maxVlNum());
            line(sb, "\t\t\tsm_sl:\t\t\t%d", p.smSl());
            line(sb, "\t\t\tpkey_tbl_len:\t\t%d", p.pkeyTblLen());
            line(sb, "\t\t\tgid_tbl_len:\t\t%d", p.gidTblLen());
            line(sb, "\t\t\tactive_width:\t\t%sX (%d)", width(p.activeWidth()), p.activeWidth());
            line(sb, "\t\t\tactive_speed:\t\t%s (%d)", speed(p.activeSpeed()), p.activeSpeed());
            line(sb, "\t\t\tphys_state:\t\t%s (%d)", physState(p.physState()), p.physState());
            gids(sb, ctx, port, p.gidTblLen(), p.linkLayer());
        }
        sb.append('\n');
    }

    /**
     * The non-empty GID table entries. On Ethernet every soft GID is a RoCE v2 GID, which current ibv_devinfo
     * prints in the compact IPv6 form with its type; on InfiniBand it prints all eight groups.
     */
    private static void gids(StringBuilder sb, Context ctx, int port, int length, LinkLayer linkLayer) {
        for (int i = 0; i < length; i++) {
            Gid gid = ctx.queryGid(port, i);
            if (gid.lo() == 0) {
                continue; // ibv_devinfo skips entries with a zero interface id
            }
            if (linkLayer == LinkLayer.ETHERNET) {
                line(sb, "\t\t\tGID[%3d]:\t\t%s, RoCE v2", i, gid.toCompactString());
            } else {
                line(sb, "\t\t\tGID[%3d]:\t\t%s", i, gid);
            }
        }
    }

    /** A GUID as ibv_devinfo prints it: four groups of four hex digits. */
    static String guid(long guid) {
        return String.format(Locale.ROOT, "%04x:%04x:%04x:%04x", (guid >>> 48) & 0xFFFF, (guid >>> 32) & 0xFFFF,
                (guid >>> 16) & 0xFFFF, guid & 0xFFFF);
    }

    private static String portState(PortAttr p) {
        return switch (p.state()) {
            case DOWN, INIT, ARMED, ACTIVE -> "PORT_" + p.state().name();
            default -> "invalid state";
        };
    }

    private static String vlNum(int code) {
        return switch (code) {
            case 1 -> "1";
            case 2 -> "2";
            case 3 -> "4";
            case 4 -> "8";
            case 5 -> "15";
            default -> "invalid value";
        };
    }

    private static String width(int code) {
        return switch (code) {
            case 1 -> "1";
            case 2 -> "4";
            case 4 -> "8";
            case 8 -> "12";
            case 16 -> "2";
            default -> "invalid width";
        };
    }

    private static String speed(int code) {
        return switch (code) {
            case 1 -> "2.5 Gbps";
            case 2 -> "5.0 Gbps";
            case 4, 8 -> "10.0 Gbps";
            case 16 -> "14.0 Gbps";
            case 32 -> "25.0 Gbps";
            case 64 -> "50.0 Gbps";
            case 128 -> "100.0 Gbps";
            default -> "invalid speed";
        };
    }

    private static String physState(int code) {
        return switch (code) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION TRAINNING"; // sic, as ibv_devinfo spells it
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY TEST";
            default -> "invalid physical state";
        };
    }

    private static void line(StringBuilder sb, String format, Object... args) {
        sb.append(String.format(Locale.ROOT, format, args)).append('\n');
    }
}

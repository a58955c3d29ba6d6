package io.jrdma.tools.perftest;

import io.jrdma.tools.perftest.Exchange.BwReport;
import io.jrdma.tools.perftest.Exchange.Dest;
import io.jrdma.tools.perftest.Tool.Verb;
import java.util.Arrays;
import java.util.Locale;

/**
 * perftest 4.5's output: the test description block, the address lines and the result tables, with its format
 * strings, and its arithmetic for the figures (times are {@link System#nanoTime} nanoseconds where perftest counts
 * CPU cycles).
 *
 * <p>Bandwidth: the average is {@code size * completed / (last completion - first post)}, the peak the best
 * {@code size / ((completion[j] - post[i]) / (j - i + 1))} over every signaled completion; MB is 2^20 bytes,
 * {@code --report_gbits} reports 10^9 bits per second (with 6 decimals below 0.1 Gb/s). Latency: the
 * {@code iters - 1} gaps between consecutive posts, sorted, without the two largest; half of each for SEND and RDMA
 * WRITE (a round trip), all of it for RDMA READ and atomics; min, max, median ("typical"), mean, the standard
 * deviation (with perftest's integer rounding of each term), and the 99% and 99.9% percentiles.
 */
final class Report {

    /** RESULT_LINE. */
    static final String RESULT_LINE = "-".repeat(87);
    static final String BW_HEADER_MB =
            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final String BW_HEADER_GB =
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
            + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    private static final String BW_ROW = " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f";
    private static final String BW_ROW_EXT = " %-7d    %d           %-7.6f            %-7.6f            %-7.6f";
    private static final String LAT_ROW =
            " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f";
    /** perftest drops the largest gaps (LAT_MEASURE_TAIL). */
    private static final int LAT_MEASURE_TAIL = 2;
    private static final double MB = 0x100000;
    private static final double GBIT = 125_000_000;
    private static final double NS_PER_S = 1e9;

    private Report() {
    }

    /** The block ctx_print_test_info prints, for what jrdma runs. */
    static String testInfo(Options o, String device, int mtuBytes, int gidIndex, int txDepth, int rxDepth,
            int cqMod, int outReads, int inlineSize) {
        Verb verb = o.tool.verb;
        StringBuilder sb = new StringBuilder();
        sb.append(RESULT_LINE).append('\n');
        String name = verb == Verb.ATOMIC ? "Atomic " + o.atomicType : verb.title;
        sb.append("                    ").append(name).append(o.tool.bw ? " BW Test" : " Latency Test").append('\n');
        sb.append(" Dual-port       : OFF\t\tDevice         : ").append(device).append('\n');
        sb.append(" Number of qps   : ").append(o.numQps).append("\t\tTransport type : IB\n");
        sb.append(" Connection type : ").append(o.connection).append("\t\tUsing SRQ      : OFF\n");
        sb.append(" PCIe relax order: OFF\n");
        sb.append(" ibv_wr* API     : OFF\n");
        if (o.client()) {
            sb.append(" TX depth        : ").append(txDepth).append('\n');
        } else if (verb == Verb.SEND) {
            sb.append(" RX depth        : ").append(rxDepth).append('\n');
        }
        if (o.tool.bw) {
            sb.append(" CQ Moderation   : ").append(cqMod).append('\n');
        }
        sb.append(" Mtu             : ").append(mtuBytes).append("[B]\n");
        sb.append(" Link type       : Ethernet\n");
        if (gidIndex >= 0) {
            sb.append(" GID index       : ").append(gidIndex).append('\n');
        }
        if (o.tool.usesOutReads()) {
            sb.append(" Outstand reads  : ").append(outReads).append('\n');
        } else {
            sb.append(" Max inline data : ").append(inlineSize).append("[B]\n");
        }
        sb.append(" rdma_cm QPs\t : ").append(o.rdmaCm ? "ON" : "OFF").append('\n');
        sb.append(" Data ex. method : ").append(o.rdmaCm ? "rdma_cm" : "Ethernet").append('\n');
        if (o.rdmaCm && !o.client()) {
            sb.append(RESULT_LINE).append('\n');
            sb.append(" Waiting for client rdma_cm QP to connect\n");
            sb.append(" Please run the same command with the IB/RoCE interface IP\n");
        }
        sb.append(RESULT_LINE);
        return sb.toString();
    }

    /** ctx_print_pingpong_data: the address line (and the GID line when GIDs are in use) of one QP. */
    static String address(boolean local, Dest d, Verb verb, boolean withGid) {
        StringBuilder sb = new StringBuilder();
        sb.append(' ').append(local ? "local" : "remote").append(" address: LID ").append(alt(d.lid(), 4))
                .append(" QPN ").append(alt(d.qpn(), 6)).append(" PSN ").append(alt(d.psn(), 6));
        if (verb == Verb.READ) {
            sb.append(" OUT ").append(alt(d.outReads(), 4));
        }
        if (verb == Verb.READ || verb == Verb.WRITE) {
            sb.append(" RKey ").append(alt(d.rkey() & 0xffffffffL, 8)).append(" VAddr ").append(alt(d.vaddr(), 16));
        }
        if (withGid) {
            sb.append("\n GID: ");
            byte[] raw = d.gid().toBytes();
            for (int i = 0; i < raw.length; i++) {
                sb.append(i == 0 ? "" : ":").append(String.format(Locale.ROOT, "%02d", raw[i] & 0xff));
            }
        }
        return sb.toString();
    }

    /** C's {@code %#0<width>x}: zero-padded hex with a 0x prefix counted in the width, and no prefix for 0. */
    static String alt(long v, int width) {
        if (v == 0) {
            return "0".repeat(width);
        }
        String hex = Long.toHexString(v);
        int digits = Math.max(width - 2, hex.length());
        return "0x" + "0".repeat(digits - hex.length()) + hex;
    }

    /** The bandwidth table's header line. */
    static String bwHeader(boolean gbits) {
        return gbits ? BW_HEADER_GB : BW_HEADER_MB;
    }

    /**
     * print_report_bw's figures for {@code n} messages of {@code size} bytes: {@code posted[i]} and
     * {@code completed[j]} are nanoTime stamps, completed[j] 0 where no completion was signaled; without peak only
     * posted[0] and completed[0] count.
     */
    static BwReport bw(long size, long n, long[] posted, long[] completed, boolean noPeak, boolean gbits) {
        double unit = gbits ? GBIT : MB;
        int last = noPeak ? 0 : (int) n - 1;
        double sumNs = Math.max(1, completed[last] - posted[0]);
        double peak = 0;
        if (!noPeak) {
            long best = Long.MAX_VALUE;
            for (int j = 0; j < n; j++) {
                if (completed[j] == 0) {
                    continue;
                }
                for (int i = 0; i <= j; i++) {
                    long t = (completed[j] - posted[i]) / (j - i + 1);
                    if (t < best) {
                        best = t;
                    }
                }
            }
            peak = best == Long.MAX_VALUE ? 0 : size * NS_PER_S / (Math.max(1, best) * unit);
        }
        double avg = size * (double) n * NS_PER_S / (sumNs * unit);
        double rate = n * NS_PER_S / (sumNs * 1e6);
        return new BwReport(size, n, peak, avg, rate);
    }

    /** One row of the bandwidth table (print_full_bw_report). */
    static String bwRow(BwReport r, boolean gbits) {
        boolean accurate = gbits && r.bwAvg() < 0.1;
        return String.format(Locale.ROOT, accurate ? BW_ROW_EXT : BW_ROW, r.size(), r.iters(), r.bwPeak(), r.bwAvg(),
                r.msgRateAvg());
    }

    /** One row of the latency table (print_report_lat) from {@code iters} post stamps. */
    static String latRow(long size, int iters, long[] posted, Verb verb) {
        int count = iters - 1;
        long[] delta = new long[count];
        for (int i = 0; i < count; i++) {
            delta[i] = posted[i + 1] - posted[i];
        }
        Arrays.sort(delta);
        int measured = count - LAT_MEASURE_TAIL;
        double unit = 1000.0 * (verb == Verb.READ || verb == Verb.ATOMIC ? 1 : 2);
        long median = (measured - 1) % 2 != 0 ? (delta[measured / 2] + delta[measured / 2 - 1]) / 2
                : delta[measured / 2];
        double sum = 0;
        for (int i = 0; i < measured; i++) {
            sum += delta[i] / unit;
        }
        double average = sum / measured;
        double variance = 0;
        for (int i = 0; i < measured; i++) {
            int term = (int) (average - delta[i] / unit); // perftest keeps each term in an int
            variance += (int) Math.pow(term, 2);
        }
        double stdev = Math.sqrt(variance / measured);
        int p99 = (int) Math.ceil(measured * 0.99);
        int p999 = (int) Math.ceil(measured * 0.999);
        return String.format(Locale.ROOT, LAT_ROW, size, iters, delta[0] / unit, delta[measured] / unit,
                median / unit, average, stdev, delta[p99] / unit, delta[p999] / unit);
    }
}

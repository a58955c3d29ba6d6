/**
 * The {@code jrdma} command line ({@link io.jrdma.tools.Jrdma}) and its small commands: demo, hello-verbs,
 * throughput, devices, devinfo, link, stat, monitor, capture, trace and noncontig, with the code the tool families
 * share (getopt parsing, the TCP rendezvous, the tool-session runner). Each larger family has a package of its own:
 * {@link io.jrdma.tools.perftest} (ib_*_bw / ib_*_lat), {@link io.jrdma.tools.pingpong} (ibv_rc_pingpong,
 * ibv_ud_pingpong), {@link io.jrdma.tools.scale} ({@code jrdma scale}) and {@link io.jrdma.tools.compare}
 * ({@code jrdma bench}, jrdma against NIO and Aeron; not the JMH {@code bench} module).
 */
package io.jrdma.tools;

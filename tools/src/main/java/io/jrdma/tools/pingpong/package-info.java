/**
 * {@code jrdma rc_pingpong} and {@code jrdma ud_pingpong}: rdma-core's ibv_rc_pingpong and ibv_ud_pingpong, with
 * their getopt command lines ({@link io.jrdma.tools.pingpong.Options}), their address exchange
 * ({@link io.jrdma.tools.pingpong.Exchange}) and output, run by {@link io.jrdma.tools.pingpong.Pingpong}.
 */
package io.jrdma.tools.pingpong;

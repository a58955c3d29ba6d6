/**
 * The perftest tools, {@code jrdma ib_send_bw} to {@code jrdma ib_atomic_lat}: perftest 4.5's command lines
 * ({@link io.jrdma.tools.perftest.Options}), its TCP handshake ({@link io.jrdma.tools.perftest.Exchange}), one
 * shared run ({@link io.jrdma.tools.perftest.Perftest}) whose bandwidth and latency loops live apart, and its report
 * formats ({@link io.jrdma.tools.perftest.Report}), so that scripts written for perftest read jrdma's output.
 */
package io.jrdma.tools.perftest;

/**
 * {@code jrdma scale}: N connected RC QPs between two processes, every QP moving and checking data
 * ({@link io.jrdma.tools.scale.Payload}), then what one idle QP costs. {@link io.jrdma.tools.scale.ScaleCommand} is
 * the command, {@link io.jrdma.tools.scale.Launcher} starts the two JVMs, {@link io.jrdma.tools.scale.Side} is one
 * side's QPs, {@link io.jrdma.tools.scale.Exchange} its control connection, {@link io.jrdma.tools.scale.Memory} and
 * {@link io.jrdma.tools.scale.QueueBytes} the measurements, {@link io.jrdma.tools.scale.Report} the result.
 */
package io.jrdma.tools.scale;

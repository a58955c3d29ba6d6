/**
 * {@code jrdma bench}: jrdma against the baselines a Java engineer would otherwise use (NIO TCP and UDP sockets,
 * Aeron over UDP), each case run as two child processes on loopback, with one table of ratios and verdicts against
 * the performance goals. {@link io.jrdma.tools.compare.BenchCommand} is the runner, {@link
 * io.jrdma.tools.compare.BenchChild} the child process; the workloads are {@code JrdmaWrite}, {@code JrdmaRead},
 * {@code JrdmaPingPong}, {@code NioBench} and {@code AeronBench}.
 *
 * <p>The package is named for what the command does, compare, rather than for the command ({@code bench}), so that
 * it is not taken for the {@code bench} module, which holds the JMH micro-benchmarks of the library itself.
 */
package io.jrdma.tools.compare;

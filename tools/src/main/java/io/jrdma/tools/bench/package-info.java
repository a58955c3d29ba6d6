/**
 * {@code jrdma bench}: jrdma against the baselines a Java engineer would otherwise use (NIO TCP and UDP sockets,
 * Aeron over UDP), each case run as two child processes on loopback, with one table of ratios and verdicts against
 * the performance goals. {@link io.jrdma.tools.bench.BenchCommand} is the runner, {@link
 * io.jrdma.tools.bench.BenchChild} the child process; the workloads are {@code JrdmaWrite}, {@code JrdmaRead},
 * {@code JrdmaPingPong}, {@code NioBench} and {@code AeronBench}.
 */
package io.jrdma.tools.bench;

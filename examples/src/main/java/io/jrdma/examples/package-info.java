/**
 * Example programs for the verbs API: hello_verbs, the packet-level demo and their small helpers, among them
 * {@link io.jrdma.examples.QpConnect}, the one RC/UD connect sequence (RESET, INIT, RTR, RTS) that the examples, the
 * {@code jrdma} tools and the JMH benchmarks all use.
 */
package io.jrdma.examples;

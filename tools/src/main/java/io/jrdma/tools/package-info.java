/**
 * The {@code jrdma} command line: demo, hello-verbs, throughput, devices, devinfo, link, stat, monitor, capture
 * and trace, over shared option and report code.
 */
package io.jrdma.tools;

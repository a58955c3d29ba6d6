/** The {@code jrdma} command line: demo, hello-verbs, devices and devinfo, over shared option and report code. */
package io.jrdma.tools;

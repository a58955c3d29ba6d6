/**
 * The conformance suite and the zero-allocation check on a real device (kernel rxe in an rxe-lab guest), run by
 * {@link io.jrdma.ibverbs.rxe.NativeTckMain} through the JUnit Platform Launcher. The class names end in "Tck", so
 * surefire on a host without a device does not pick them up.
 */
package io.jrdma.ibverbs.rxe;

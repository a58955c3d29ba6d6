/**
 * The verbs conformance suite: abstract JUnit 5 tests organised per verb, as rdma-core's tests are (device, pd,
 * mr, cq, qp, srq, atomic, ud, uc, mw, send/recv, write, read, async events). A provider's build subclasses each
 * test class (usually with an empty body) and registers a {@link io.jrdma.tck.TckEnvironment}.
 */
package io.jrdma.tck;

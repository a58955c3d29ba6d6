package io.jrdma.tck.soft;

import io.jrdma.tck.IsolationTck;

/** {@link IsolationTck} on the soft device. */
class SoftIsolationTest extends IsolationTck {
}

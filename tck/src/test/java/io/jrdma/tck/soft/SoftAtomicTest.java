package io.jrdma.tck.soft;

import io.jrdma.tck.AtomicTck;

/** {@link AtomicTck} on the soft device. */
class SoftAtomicTest extends AtomicTck {
}

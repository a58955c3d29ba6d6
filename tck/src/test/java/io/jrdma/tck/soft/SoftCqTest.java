package io.jrdma.tck.soft;

import io.jrdma.tck.CqTck;

/** {@link CqTck} on the soft device. */
class SoftCqTest extends CqTck {
}

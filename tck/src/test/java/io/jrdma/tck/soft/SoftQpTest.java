package io.jrdma.tck.soft;

import io.jrdma.tck.QpTck;

/** {@link QpTck} on the soft device. */
class SoftQpTest extends QpTck {
}

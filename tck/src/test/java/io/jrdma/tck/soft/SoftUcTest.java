package io.jrdma.tck.soft;

import io.jrdma.tck.UcTck;

/** {@link UcTck} on the soft device. */
class SoftUcTest extends UcTck {
}

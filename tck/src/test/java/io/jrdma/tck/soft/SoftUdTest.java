package io.jrdma.tck.soft;

import io.jrdma.tck.UdTck;

/** {@link UdTck} on the soft device. */
class SoftUdTest extends UdTck {
}

package io.jrdma.tck.soft;

import io.jrdma.tck.SendRecvTck;

/** {@link SendRecvTck} on the soft device. */
class SoftSendRecvTest extends SendRecvTck {
}

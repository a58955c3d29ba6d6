package io.jrdma.tck.soft;

import io.jrdma.tck.QpQueueTck;

/** {@link QpQueueTck} on the soft device. */
class SoftQpQueueTest extends QpQueueTck {
}

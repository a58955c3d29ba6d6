package io.jrdma.tck.soft;

import io.jrdma.tck.AsyncEventTck;

/** {@link AsyncEventTck} on the soft device. */
class SoftAsyncEventTest extends AsyncEventTck {
}

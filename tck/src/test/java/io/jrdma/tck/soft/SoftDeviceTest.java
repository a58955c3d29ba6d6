package io.jrdma.tck.soft;

import io.jrdma.tck.DeviceTck;

/** {@link DeviceTck} on the soft device. */
class SoftDeviceTest extends DeviceTck {
}

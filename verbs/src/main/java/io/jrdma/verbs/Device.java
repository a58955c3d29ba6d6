package io.jrdma.verbs;

/** An RDMA device (ibv_device) that can be opened. */
public interface Device {

    /** The device name, as ibv_get_device_name (for example {@code rxe0}). */
    String name();

    /** The node GUID (ibv_get_device_guid). */
    long guid();

    /** The name of the provider that drives this device. */
    String provider();

    /** Opens the device (ibv_open_device). */
    Context open();
}

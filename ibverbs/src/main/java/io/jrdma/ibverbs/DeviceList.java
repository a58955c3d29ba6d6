package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The result of loading libibverbs and listing its devices (ibv_get_device_list), once: either the devices, or the
 * reason there are none. Loading never throws: a missing library, denied native access, another platform or a
 * failed layout self-check each become a reason.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class DeviceList {

    private static volatile DeviceList processWide;

    private final LibIbverbs lib;
    private final List<IbvDevice> devices;
    private final String reason;

    private DeviceList(LibIbverbs lib, List<IbvDevice> devices, String reason) {
        this.lib = lib;
        this.devices = devices;
        this.reason = reason;
    }

    /** The process-wide list, loaded on first use from {@value LibIbverbs#LIBRARY_PROPERTY}'s library. */
    static DeviceList get() {
        DeviceList l = processWide;
        if (l == null) {
            synchronized (DeviceList.class) {
                l = processWide;
                if (l == null) {
                    l = load(System.getProperty(LibIbverbs.LIBRARY_PROPERTY, LibIbverbs.DEFAULT_LIBRARY));
                    processWide = l;
                }
            }
        }
        return l;
    }

    /** Loads {@code library} and lists its devices; never throws. */
    static DeviceList load(String library) {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return failed(null, "the libibverbs struct layouts are written for x86_64 Linux, not " + os + "/" + arch);
        }
        LibIbverbs lib;
        try {
            lib = LibIbverbs.load(library);
        } catch (IllegalCallerException e) {
            return failed(null, "native access is denied (" + e.getMessage() + "); run java with "
                    + "--enable-native-access=ALL-UNNAMED");
        } catch (IllegalArgumentException e) {
            return failed(null, "cannot load " + library + " (" + e.getMessage() + "); install rdma-core's "
                    + "libibverbs (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers)");
        }
        try {
            SelfCheck.statusStrings(lib);
            return list(lib);
        } catch (IllegalStateException | IllegalArgumentException e) {
            return failed(lib, e.getMessage());
        } catch (ExceptionInInitializerError e) {
            return failed(lib, "cannot link the data-path verbs: " + e.getCause());
        }
    }

    private static DeviceList failed(LibIbverbs lib, String reason) {
        return new DeviceList(lib, List.of(), reason);
    }

    /** ibv_get_device_list: the devices' pointers stay valid for the process (the list is never freed). */
    private static DeviceList list(LibIbverbs lib) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            LibIbverbs.Result r = LibIbverbs.call(lib.getDeviceList, count);
            if (r.isNull()) {
                return failed(lib, lib.name + " lists no device (ibv_get_device_list: " + Libc.strerror(r.errno())
                        + (r.errno() == 38 ? " — no RDMA device or kernel support" : "") + ")");
            }
            int n = count.get(JAVA_INT, 0);
            if (n == 0) {
                return failed(lib, lib.name + " lists no device (ibv_get_device_list found none; is an RDMA driver "
                        + "loaded? For Soft-RoCE: rdma link add rxe0 type rxe netdev eth0)");
            }
            MemorySegment array = r.pointer().reinterpret(ADDRESS.byteSize() * n);
            Ops.POLL_CQ.type(); // links the data-path verbs now, so a failure becomes this list's reason
            List<IbvDevice> devices = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                MemorySegment dev = array.getAtIndex(ADDRESS, i);
                String name = LibIbverbs.string(LibIbverbs.call(lib.getDeviceName, dev).pointer());
                long guid = Long.reverseBytes(LibIbverbs.call(lib.getDeviceGuid, dev).value()); // __be64
                devices.add(new IbvDevice(lib, dev, name, guid));
            }
            return new DeviceList(lib, List.copyOf(devices), null);
        }
    }

    /** The library, or null when it did not load. */
    LibIbverbs lib() {
        return lib;
    }

    /** The devices (empty when {@link #reason()} is set). */
    List<IbvDevice> devices() {
        return devices;
    }

    /** Why there is no device, or null. */
    String reason() {
        return reason;
    }
}

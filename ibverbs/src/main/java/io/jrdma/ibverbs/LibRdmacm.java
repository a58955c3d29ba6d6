package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The functions of librdmacm.so.1 the native connection manager calls, each a downcall handle capturing errno
 * (librdmacm returns -1 and sets errno). Call them with {@link LibIbverbs#call}. Loaded once per process by
 * {@link #get()}, which never throws: a missing library or device becomes {@link #reason()}.
 */
@SuppressWarnings("restricted") // this module binds libibverbs, librdmacm and libc: native access is its purpose
final class LibRdmacm {

    /** The system property naming the library to load (tests name a missing one). */
    static final String LIBRARY_PROPERTY = "jrdma.rdmacm.library";
    /** The library loaded by default: librdmacm's stable ABI soname. */
    static final String DEFAULT_LIBRARY = "librdmacm.so.1";
    /** The device librdmacm opens for its commands. */
    static final String CM_DEVICE = "/dev/infiniband/rdma_cm";

    private static final Linker LINKER = Linker.nativeLinker();
    private static volatile Object processWide; // a LibRdmacm, or the String reason it is unavailable

    final String name;
    private final SymbolLookup lookup;
    final MethodHandle createEventChannel;
    final MethodHandle destroyEventChannel;
    final MethodHandle createId;
    final MethodHandle destroyId;
    final MethodHandle bindAddr;
    final MethodHandle resolveAddr;
    final MethodHandle resolveRoute;
    final MethodHandle createQp;
    final MethodHandle destroyQp;
    final MethodHandle connect;
    final MethodHandle listen;
    final MethodHandle accept;
    final MethodHandle reject;
    final MethodHandle disconnect;
    final MethodHandle getCmEvent;
    final MethodHandle ackCmEvent;

    private LibRdmacm(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
        createEventChannel = fn("rdma_create_event_channel", ADDRESS);
        destroyEventChannel = fn("rdma_destroy_event_channel", null, ADDRESS);
        createId = fn("rdma_create_id", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
        destroyId = fn("rdma_destroy_id", JAVA_INT, ADDRESS);
        bindAddr = fn("rdma_bind_addr", JAVA_INT, ADDRESS, ADDRESS);
        resolveAddr = fn("rdma_resolve_addr", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
        resolveRoute = fn("rdma_resolve_route", JAVA_INT, ADDRESS, JAVA_INT);
        createQp = fn("rdma_create_qp", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        destroyQp = fn("rdma_destroy_qp", null, ADDRESS);
        connect = fn("rdma_connect", JAVA_INT, ADDRESS, ADDRESS);
        listen = fn("rdma_listen", JAVA_INT, ADDRESS, JAVA_INT);
        accept = fn("rdma_accept", JAVA_INT, ADDRESS, ADDRESS);
        reject = fn("rdma_reject", JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE);
        disconnect = fn("rdma_disconnect", JAVA_INT, ADDRESS);
        getCmEvent = fn("rdma_get_cm_event", JAVA_INT, ADDRESS, ADDRESS);
        ackCmEvent = fn("rdma_ack_cm_event", JAVA_INT, ADDRESS);
    }

    /** The process-wide library, or null when it is unavailable ({@link #reason()} says why). */
    static LibRdmacm get() {
        return load() instanceof LibRdmacm lib ? lib : null;
    }

    /** Why the native CM is unavailable, or null when it is available. */
    static String reason() {
        return load() instanceof String reason ? reason : null;
    }

    private static Object load() {
        Object l = processWide;
        if (l == null) {
            synchronized (LibRdmacm.class) {
                l = processWide;
                if (l == null) {
                    l = load(System.getProperty(LIBRARY_PROPERTY, DEFAULT_LIBRARY));
                    processWide = l;
                }
            }
        }
        return l;
    }

    /** Loads {@code library} after libibverbs' devices are listed: the library, or why it cannot be used. */
    static Object load(String library) {
        String verbs = DeviceList.get().reason();
        if (verbs != null) {
            return verbs;
        }
        if (!java.nio.file.Files.exists(java.nio.file.Path.of(CM_DEVICE))) {
            return "there is no " + CM_DEVICE + " (load the rdma_ucm kernel module)";
        }
        return bind(library);
    }

    /** Loads {@code library} and binds its functions: the library, or why it cannot (never throws). */
    static Object bind(String library) {
        try {
            return new LibRdmacm(library, SymbolLookup.libraryLookup(library, Arena.global()));
        } catch (IllegalCallerException e) {
            return "native access is denied (" + e.getMessage() + "); run java with "
                    + "--enable-native-access=ALL-UNNAMED";
        } catch (IllegalArgumentException e) {
            return "cannot load " + library + " (" + e.getMessage() + "); install rdma-core's librdmacm "
                    + "(Debian/Ubuntu: apt-get install librdmacm1)";
        }
    }

    private MethodHandle fn(String symbol, MemoryLayout result, MemoryLayout... args) {
        MemorySegment address = lookup.find(symbol).orElseThrow(() -> new IllegalArgumentException(
                name + " has no function " + symbol));
        FunctionDescriptor d = result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        return LINKER.downcallHandle(address, d, Linker.Option.captureCallState("errno"));
    }

    /** The errno of a failed int-returning librdmacm call (-1 and errno; a negative errno from a few paths). */
    static int failure(LibIbverbs.Result r) {
        int rc = (int) r.value();
        return rc == -1 && r.errno() != 0 ? r.errno() : rc < 0 ? -rc : r.errno();
    }
}

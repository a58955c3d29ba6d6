package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The exported functions of libibverbs.so.1 that the control path calls, each as a downcall handle that also
 * captures errno ({@code Linker.Option.captureCallState("errno")}). The data-path verbs, which verbs.h defines as
 * static inline calls through {@code context->ops}, are in {@link Ops}.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class LibIbverbs {

    /** The system property naming the library to load (tests name a missing one). */
    static final String LIBRARY_PROPERTY = "jrdma.ibverbs.library";
    /** The library loaded by default: libibverbs' stable ABI soname. */
    static final String DEFAULT_LIBRARY = "libibverbs.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    final String name;
    private final SymbolLookup lookup;
    final MethodHandle getDeviceList;
    final MethodHandle getDeviceName;
    final MethodHandle getDeviceGuid;
    final MethodHandle openDevice;
    final MethodHandle closeDevice;
    final MethodHandle queryDevice;
    final MethodHandle queryPort;
    final MethodHandle queryGid;
    final MethodHandle allocPd;
    final MethodHandle deallocPd;
    final MethodHandle regMr;
    final MethodHandle deregMr;
    final MethodHandle createCompChannel;
    final MethodHandle destroyCompChannel;
    final MethodHandle createCq;
    final MethodHandle destroyCq;
    final MethodHandle getCqEvent;
    final MethodHandle ackCqEvents;
    final MethodHandle createQp;
    final MethodHandle modifyQp;
    final MethodHandle queryQp;
    final MethodHandle destroyQp;
    final MethodHandle createSrq;
    final MethodHandle modifySrq;
    final MethodHandle querySrq;
    final MethodHandle destroySrq;
    final MethodHandle createAh;
    final MethodHandle destroyAh;
    final MethodHandle getAsyncEvent;
    final MethodHandle ackAsyncEvent;
    final MethodHandle wcStatusStr;

    private LibIbverbs(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
        getDeviceList = fn("ibv_get_device_list", ADDRESS, ADDRESS);
        getDeviceName = fn("ibv_get_device_name", ADDRESS, ADDRESS);
        getDeviceGuid = fn("ibv_get_device_guid", JAVA_LONG, ADDRESS);
        openDevice = fn("ibv_open_device", ADDRESS, ADDRESS);
        closeDevice = fn("ibv_close_device", JAVA_INT, ADDRESS);
        queryDevice = fn("ibv_query_device", JAVA_INT, ADDRESS, ADDRESS);
        queryPort = fn("ibv_query_port", JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS);
        queryGid = fn("ibv_query_gid", JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS);
        allocPd = fn("ibv_alloc_pd", ADDRESS, ADDRESS);
        deallocPd = fn("ibv_dealloc_pd", JAVA_INT, ADDRESS);
        regMr = fn("ibv_reg_mr", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT);
        deregMr = fn("ibv_dereg_mr", JAVA_INT, ADDRESS);
        createCompChannel = fn("ibv_create_comp_channel", ADDRESS, ADDRESS);
        destroyCompChannel = fn("ibv_destroy_comp_channel", JAVA_INT, ADDRESS);
        createCq = fn("ibv_create_cq", ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        destroyCq = fn("ibv_destroy_cq", JAVA_INT, ADDRESS);
        getCqEvent = fn("ibv_get_cq_event", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        ackCqEvents = fn("ibv_ack_cq_events", null, ADDRESS, JAVA_INT);
        createQp = fn("ibv_create_qp", ADDRESS, ADDRESS, ADDRESS);
        modifyQp = fn("ibv_modify_qp", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        queryQp = fn("ibv_query_qp", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS);
        destroyQp = fn("ibv_destroy_qp", JAVA_INT, ADDRESS);
        createSrq = fn("ibv_create_srq", ADDRESS, ADDRESS, ADDRESS);
        modifySrq = fn("ibv_modify_srq", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        querySrq = fn("ibv_query_srq", JAVA_INT, ADDRESS, ADDRESS);
        destroySrq = fn("ibv_destroy_srq", JAVA_INT, ADDRESS);
        createAh = fn("ibv_create_ah", ADDRESS, ADDRESS, ADDRESS);
        destroyAh = fn("ibv_destroy_ah", JAVA_INT, ADDRESS);
        getAsyncEvent = fn("ibv_get_async_event", JAVA_INT, ADDRESS, ADDRESS);
        ackAsyncEvent = fn("ibv_ack_async_event", null, ADDRESS);
        wcStatusStr = fn("ibv_wc_status_str", ADDRESS, JAVA_INT);
    }

    /**
     * Loads {@code name} for the life of the process and binds its functions.
     *
     * @throws IllegalArgumentException when the library cannot be loaded or lacks a function (the message says
     *                                  which); IllegalCallerException when native access is denied
     */
    static LibIbverbs load(String name) {
        SymbolLookup lookup = SymbolLookup.libraryLookup(name, Arena.global());
        return new LibIbverbs(name, lookup);
    }

    private MethodHandle fn(String symbol, MemoryLayout result, MemoryLayout... args) {
        MemorySegment address = lookup.find(symbol).orElseThrow(() -> new IllegalArgumentException(
                name + " has no function " + symbol + " (rdma-core older than 44?)"));
        FunctionDescriptor d = result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        return LINKER.downcallHandle(address, d, Linker.Option.captureCallState("errno"));
    }

    /** A call's outcome: the value returned and the errno it left. */
    record Result(long value, MemorySegment pointer, int errno) {
        /** Whether a pointer-returning call returned NULL. */
        boolean isNull() {
            return pointer != null && pointer.address() == 0;
        }
    }

    /**
     * Calls {@code h} with {@code args} (the errno capture argument is prepended) and returns what it returned and
     * the errno it left. The control path only: it allocates.
     */
    static Result call(MethodHandle h, Object... args) {
        return invoke(h, null, args);
    }

    /**
     * As {@link #call} for an unbound downcall handle (the function pointers of {@link Ops}): the function's
     * address comes first, then the errno capture argument, then {@code args}.
     */
    static Result callAt(MethodHandle h, MemorySegment function, Object... args) {
        return invoke(h, function, args);
    }

    private static Result invoke(MethodHandle h, MemorySegment function, Object[] args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int lead = function == null ? 1 : 2;
            Object[] all = new Object[args.length + lead];
            if (function != null) {
                all[0] = function;
            }
            all[lead - 1] = state;
            System.arraycopy(args, 0, all, lead, args.length);
            Object r = h.invokeWithArguments(Arrays.asList(all));
            int errno = (int) ERRNO.get(state, 0L);
            if (r instanceof MemorySegment p) {
                return new Result(p.address(), p, errno);
            }
            return new Result(r == null ? 0 : ((Number) r).longValue(), null, errno);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("native call failed: " + t, t);
        }
    }

    /**
     * The errno of a failed int-returning libibverbs call: rdma-core returns the errno itself from most verbs, -1
     * with errno set from some (ibv_close_device, ibv_query_gid), and a negative errno from a few providers.
     */
    static int failure(Result r) {
        int rc = (int) r.value();
        if (rc > 0) {
            return rc;
        }
        if (rc == -1 && r.errno() != 0) {
            return r.errno();
        }
        return rc < 0 ? -rc : r.errno();
    }

    /** The C string at {@code p}, or null for NULL. */
    static String string(MemorySegment p) {
        return p.address() == 0 ? null : p.reinterpret(4096).getString(0);
    }
}

package io.jrdma.soft.cm;

import io.jrdma.cm.PortSpace;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Everything the soft CM shares between ids, channels and agents: the devices and their {@link CmAgent}s, the
 * bound ports of each port space, the listeners by service id, and the communication ids (local, and remote with
 * the peer's CA GUID, as ib_cm's tables). Its monitor is the one lock of all CM state.
 */
final class CmRegistry {

    /** Most ids at a time (rdma_cm has no fixed cap; this bounds the state a peer can make us keep). */
    static final int MAX_IDS = Integer.getInteger("jrdma.cm.maxIds", 16_384);
    private static final int EPHEMERAL_LOW = 32_768;
    private static final int EPHEMERAL_HIGH = 60_999;

    private final Supplier<List<SoftDevice>> devices;
    private final Map<SoftDevice, CmAgent> agents = new LinkedHashMap<>();
    private final Map<PortSpace, Map<Integer, List<SoftCmId>>> ports = new EnumMap<>(PortSpace.class);
    private final Map<Long, List<SoftCmId>> listeners = new HashMap<>();
    private final Map<Integer, SoftCmId> localIds = new HashMap<>();
    private final Map<RemoteKey, SoftCmId> remoteIds = new HashMap<>();
    private int ids;

    /** The peer's end of a connection: its communication id (or SIDR request id) and its CA GUID or address. */
    record RemoteKey(int commId, long peer) {
    }

    CmRegistry(Supplier<List<SoftDevice>> devices) {
        this.devices = devices;
        for (PortSpace ps : PortSpace.values()) {
            ports.put(ps, new HashMap<>());
        }
    }

    /** The device with the address {@code local}, or null. */
    synchronized SoftDevice deviceOf(InetAddress local) {
        for (SoftDevice d : devices.get()) {
            if (d.address().equals(local)) {
                return d;
            }
        }
        return null;
    }

    /** The devices now. */
    List<SoftDevice> devices() {
        return devices.get();
    }

    /**
     * The device that reaches {@code destination}: the one with that address, else for a loopback destination the
     * first loopback device, else the first device; null when there is none.
     */
    synchronized SoftDevice route(InetAddress destination) {
        List<SoftDevice> all = devices.get();
        SoftDevice loop = null;
        for (SoftDevice d : all) {
            if (d.address().equals(destination)) {
                return d;
            }
            if (loop == null && d.address().isLoopbackAddress() == destination.isLoopbackAddress()) {
                loop = d;
            }
        }
        return loop != null ? loop : all.isEmpty() ? null : all.getFirst();
    }

    /** The agent of {@code device}, started on first use. */
    synchronized CmAgent agent(SoftDevice device) {
        CmAgent a = agents.get(device);
        if (a == null || a.isClosed()) {
            a = new CmAgent(this, device);
            agents.put(device, a);
        }
        return a;
    }

    /** The agents started so far. */
    synchronized List<CmAgent> agents() {
        return new ArrayList<>(agents.values());
    }

    /** Stops the agent of {@code device} (as if the device went away); its ids stop hearing from peers. */
    void closeAgent(SoftDevice device) {
        CmAgent a;
        synchronized (this) {
            a = agents.remove(device);
        }
        if (a != null) {
            a.close();
        }
    }

    /** Stops every agent. */
    void closeAll() {
        for (CmAgent a : agents()) {
            closeAgent(a.device());
        }
    }

    synchronized void addId() {
        if (ids >= MAX_IDS) {
            throw new VerbsException(Errno.ENOMEM, "too many CM ids (" + MAX_IDS + ", jrdma.cm.maxIds)");
        }
        ids++;
    }

    synchronized void removeId() {
        ids--;
    }

    synchronized int idCount() {
        return ids;
    }

    /** Binds {@code id} to {@code port} (0: a free ephemeral one) of its port space; returns the port. */
    synchronized int bind(SoftCmId id, InetAddress address, int port) {
        Map<Integer, List<SoftCmId>> space = ports.get(id.portSpace());
        if (port == 0) {
            for (int i = 0; i < EPHEMERAL_HIGH - EPHEMERAL_LOW; i++) {
                int p = ThreadLocalRandom.current().nextInt(EPHEMERAL_LOW, EPHEMERAL_HIGH + 1);
                if (!space.containsKey(p)) {
                    space.computeIfAbsent(p, k -> new ArrayList<>()).add(id);
                    return p;
                }
            }
            throw new VerbsException(Errno.EADDRINUSE, "no free port in " + id.portSpace());
        }
        List<SoftCmId> holders = space.computeIfAbsent(port, k -> new ArrayList<>());
        for (SoftCmId h : holders) {
            InetAddress a = h.localAddress().getAddress();
            if (a.isAnyLocalAddress() || address.isAnyLocalAddress() || a.equals(address)) {
                throw new VerbsException(Errno.EADDRINUSE, "port " + port + " of " + id.portSpace()
                        + " is taken on " + a.getHostAddress());
            }
        }
        holders.add(id);
        return port;
    }

    synchronized void unbind(SoftCmId id, int port) {
        Map<Integer, List<SoftCmId>> space = ports.get(id.portSpace());
        List<SoftCmId> holders = space.get(port);
        if (holders != null) {
            holders.remove(id);
            if (holders.isEmpty()) {
                space.remove(port);
            }
        }
    }

    synchronized void listen(SoftCmId id, long serviceId) {
        listeners.computeIfAbsent(serviceId, k -> new ArrayList<>()).add(id);
    }

    synchronized void unlisten(SoftCmId id, long serviceId) {
        List<SoftCmId> l = listeners.get(serviceId);
        if (l != null) {
            l.remove(id);
            if (l.isEmpty()) {
                listeners.remove(serviceId);
            }
        }
    }

    /** The listener for {@code serviceId} reached at {@code local} on {@code device}, or null. */
    synchronized SoftCmId listener(long serviceId, InetAddress local, SoftDevice device) {
        List<SoftCmId> l = listeners.get(serviceId);
        if (l == null) {
            return null;
        }
        SoftCmId wildcard = null;
        for (SoftCmId id : l) {
            InetAddress a = id.localAddress().getAddress();
            if (a.equals(local) || a.equals(device.address())) {
                return id;
            }
            if (a.isAnyLocalAddress()) {
                wildcard = id;
            }
        }
        return wildcard;
    }

    /** True when some listener has {@code serviceId}, whatever its address. */
    synchronized boolean hasListener(long serviceId) {
        return listeners.containsKey(serviceId);
    }

    /** A fresh local communication id for {@code id}. */
    synchronized int newLocalId(SoftCmId id) {
        while (true) {
            int c = ThreadLocalRandom.current().nextInt();
            if (c != 0 && !localIds.containsKey(c)) {
                localIds.put(c, id);
                return c;
            }
        }
    }

    synchronized void releaseLocalId(int commId) {
        localIds.remove(commId);
    }

    synchronized SoftCmId byLocalId(int commId) {
        return localIds.get(commId);
    }

    synchronized SoftCmId byRemote(RemoteKey key) {
        return remoteIds.get(key);
    }

    synchronized void putRemote(RemoteKey key, SoftCmId id) {
        remoteIds.put(key, id);
    }

    synchronized void removeRemote(RemoteKey key, SoftCmId id) {
        remoteIds.remove(key, id);
    }

    /** Sizes of the tables, for leak checks: local ids, remote ids, listeners, bound ports. */
    synchronized int[] sizes() {
        int bound = 0;
        for (Map<Integer, List<SoftCmId>> s : ports.values()) {
            bound += s.size();
        }
        return new int[] {localIds.size(), remoteIds.size(), listeners.size(), bound};
    }
}

package io.jrdma.soft;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.ProtectionDomain;
import java.util.LinkedHashMap;

/**
 * A bounded cache of address handles by destination GID, for a control path that sends to a few peers again and
 * again (a {@link MadPort}): the least recently used handle is destroyed when a new destination would exceed the
 * bound. Not thread-safe: its owner serialises the calls.
 */
final class AhCache {

    private final ProtectionDomain pd;
    private final int capacity;
    private final LinkedHashMap<Gid, AddressHandle> byGid = new LinkedHashMap<>(16, 0.75f, true);

    AhCache(ProtectionDomain pd, int capacity) {
        this.pd = pd;
        this.capacity = capacity;
    }

    /** The handle for {@code gid}, created (over GID index 1, the device's IPv4 one) on first use. */
    AddressHandle get(Gid gid) {
        AddressHandle ah = byGid.get(gid);
        if (ah != null) {
            return ah;
        }
        ah = pd.createAh(new AhAttr().isGlobal(true).dgid(gid).sgidIndex(1).portNum(1).hopLimit(64));
        if (byGid.size() >= capacity) {
            Gid eldest = byGid.keySet().iterator().next(); // access order: the least recently used first
            byGid.remove(eldest).close(); // a request already posted with it keeps its own reference (SoftAh)
        }
        byGid.put(gid, ah);
        return ah;
    }

    /** How many handles are cached. */
    int size() {
        return byGid.size();
    }

    /** Destroys every cached handle. */
    void clear() {
        for (AddressHandle ah : byGid.values()) {
            ah.close();
        }
        byGid.clear();
    }
}

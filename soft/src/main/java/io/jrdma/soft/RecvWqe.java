package io.jrdma.soft;

/** A receive queue entry: the posted receive request copied into preallocated storage. */
final class RecvWqe {
    long wrId;
    int numSge;
    final long[] sgeAddr;
    final int[] sgeLength;
    final int[] sgeLkey;
    long capacity;

    RecvWqe(int maxSge) {
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
    }
}

package io.jrdma.soft;

/** A responder's record of one accepted RDMA READ request, streamed back as response packets (IBA 9.7.5.2.5). */
final class ReadResource {
    int firstPsn;
    int packets;
    int sent;
    long va;
    long length;
    int rkey;
}

/** RoCEv2 packet formats: headers, ICRC, pcap reading and writing, packet formatting. No dependencies. */
module io.jrdma.wire {
    exports io.jrdma.wire;
}

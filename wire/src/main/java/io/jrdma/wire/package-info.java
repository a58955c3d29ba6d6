/** RoCEv2 wire codec: the IBA opcode table, header flyweights, PSN math, ICRC, pcap capture and decoding. */
package io.jrdma.wire;

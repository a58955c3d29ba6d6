/** The soft RoCEv2 device: a software RDMA NIC that speaks RoCEv2 over UDP like kernel rxe. */
package io.jrdma.soft;

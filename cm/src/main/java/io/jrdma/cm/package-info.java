/**
 * The connection manager: librdmacm's model in Java. An {@link io.jrdma.cm.EventChannel} delivers the events of its
 * {@link io.jrdma.cm.CmId}s; ids resolve addresses, listen, connect, accept, reject and disconnect, and the CM moves
 * their QPs through their states.
 */
package io.jrdma.cm;

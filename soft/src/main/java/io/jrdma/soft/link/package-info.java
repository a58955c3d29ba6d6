/** The soft device link layer: RoCEv2 over UDP sockets. */
package io.jrdma.soft.link;

/** {@code jrdma rping}: librdmacm's rping, over jrdma's connection manager. */
package io.jrdma.tools.rping;

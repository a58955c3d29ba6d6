/** {@code jrdma ucmatose} and {@code jrdma udaddy}: librdmacm's connection manager examples, over jrdma's CM. */
package io.jrdma.tools.cmatose;

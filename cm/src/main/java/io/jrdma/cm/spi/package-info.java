/** The service-provider interface connection manager implementations implement. */
package io.jrdma.cm.spi;

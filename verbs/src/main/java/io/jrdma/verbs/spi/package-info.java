/** Service-provider interface: how device implementations plug into {@link io.jrdma.verbs.Verbs}. */
package io.jrdma.verbs.spi;

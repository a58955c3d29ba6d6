/** Example programs for the verbs API: hello_verbs, the packet-level demo and their small helpers. */
package io.jrdma.examples;

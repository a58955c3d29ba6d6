/** The verbs API: devices, protection domains, memory regions, completion queues, queue pairs and work requests. */
package io.jrdma.verbs;

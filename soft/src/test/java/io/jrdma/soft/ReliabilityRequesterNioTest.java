package io.jrdma.soft;

/** {@link ReliabilityRequesterTest} with both devices on NIO channels instead of native sockets. */
class ReliabilityRequesterNioTest extends ReliabilityRequesterTest {

    @Override
    LinkKind kind() {
        return LinkKind.NIO;
    }
}

package io.jrdma.soft;

/** {@link ReliabilityResponderTest} with both devices on NIO channels instead of native sockets. */
class ReliabilityResponderNioTest extends ReliabilityResponderTest {

    @Override
    LinkKind kind() {
        return LinkKind.NIO;
    }
}

package io.jrdma.soft;

/** {@link ReliabilityIcrcTest} with both devices on NIO channels instead of native sockets. */
class ReliabilityIcrcNioTest extends ReliabilityIcrcTest {

    @Override
    LinkKind kind() {
        return LinkKind.NIO;
    }
}

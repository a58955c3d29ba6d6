package io.jrdma.soft;

/** {@link ReliabilityRulesTest} with both devices on NIO channels instead of native sockets. */
class ReliabilityRulesNioTest extends ReliabilityRulesTest {

    @Override
    LinkKind kind() {
        return LinkKind.NIO;
    }
}

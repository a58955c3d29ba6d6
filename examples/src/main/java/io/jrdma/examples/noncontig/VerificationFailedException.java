package io.jrdma.examples.noncontig;

/** The receiver's bytes are not what the sender sent: the benchmark stops and the command fails. */
public final class VerificationFailedException extends RuntimeException {

    /** A failure described by {@code message}. */
    public VerificationFailedException(String message) {
        super(message);
    }
}

package io.jrdma.tools;

import java.io.PrintStream;

/** One run of a C-style tool (pingpong, perftest): run, report a failure in one line, always release. */
public interface ToolSession {

    /** Runs the tool; returns its exit status. */
    int run() throws Exception;

    /** Releases what the run opened, also after a failure. */
    void close();

    /**
     * Runs {@code session}: exit status 1 with {@code "<tool>: error: <message>"} on {@code err} when it throws,
     * and a close failure reported the same way.
     */
    static int execute(String tool, ToolSession session, PrintStream out, PrintStream err) {
        try {
            return session.run();
        } catch (Exception e) {
            out.flush();
            String m = e.getMessage();
            err.println(tool + ": error: " + (m == null || m.isBlank() ? e.toString() : m));
            return 1;
        } finally {
            out.flush();
            try {
                session.close();
            } catch (RuntimeException e) {
                err.println(tool + ": error: closing: " + e.getMessage());
            }
        }
    }
}

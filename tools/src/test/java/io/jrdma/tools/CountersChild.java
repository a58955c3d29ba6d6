package io.jrdma.tools;

import io.jrdma.soft.Counter;
import io.jrdma.soft.Counters;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A second process for the counters tests: opens two devices ({@code args}: name a, address a, name b, address
 * b), moves data, prints {@code ready} and device a's counters as {@code name=value} pairs on one line, then
 * waits for a command on stdin: {@code halt} dies without closing anything (as if killed), {@code close} closes
 * the devices and exits.
 */
public final class CountersChild {

    private CountersChild() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        Traffic t = new Traffic(args[0], args[1], args[2], args[3]);
        for (int i = 0; i < 5; i++) {
            t.write(10_000);
        }
        // a's last completion came from b's last ACK: nothing more arrives, a's counters stay as printed
        Counters c = t.a.context().counters();
        StringBuilder sb = new StringBuilder("ready");
        for (Counter k : Counter.values()) {
            sb.append(' ').append(k.rxeName()).append('=').append(c.get(k));
        }
        System.out.println(sb);
        System.out.flush();
        String command = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if ("halt".equals(command)) {
            Runtime.getRuntime().halt(0);
        }
        t.close();
    }
}

package io.jrdma.soft;

import io.jrdma.verbs.Gid;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The child process of {@link MultiProcessAtomicTest}: a {@link FetchAddClient} on the address in args[0] with
 * args[1] QPs of args[2] atomics each. Prints "gid qpn,qpn,...", reads "gid qpn,qpn,... addr rkey" and connects,
 * prints "ready", waits for "go", runs, prints the original values (comma separated), then "bye".
 */
public final class AtomicClientMain {

    private AtomicClientMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (FetchAddClient c = new FetchAddClient(args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]))) {
            out.println(c.describe());
            String[] target = in.readLine().trim().split(" ");
            c.connect(Gid.parse(target[0]), Arrays.stream(target[1].split(",")).mapToInt(Integer::parseInt).toArray());
            out.println("ready");
            if (!"go".equals(in.readLine())) {
                return;
            }
            long[] values = c.run(Long.parseLong(target[2]), Integer.parseInt(target[3]),
                    TimeUnit.SECONDS.toNanos(60));
            StringBuilder sb = new StringBuilder();
            for (long v : values) {
                sb.append(sb.isEmpty() ? "" : ",").append(v);
            }
            out.println(sb);
            out.println("bye");
        }
    }
}

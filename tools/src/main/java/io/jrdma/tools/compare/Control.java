package io.jrdma.tools.compare;

import io.jrdma.tools.CompilerWork;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The control connection between the two children of one benchmark run: a TCP connection (TCP_NODELAY) carrying
 * text lines, separate from the data path. A reader thread stamps every line with the time and the process CPU
 * time at its arrival, so the side that does not measure can still sample its CPU at the measured interval's
 * start and end ({@code start} and {@code stop}, sent by the measuring side). {@code stop} also sets a flag the
 * data loops poll and runs the {@linkplain #onStop stop action}. {@code jit?} and {@code jit} carry the compilers'
 * work for the warm-up ({@link Window}). Other lines queue (bounded) for {@link #await}.
 */
final class Control implements AutoCloseable {

    /** A line and when it arrived. */
    record Msg(String line, long nanoTime, long cpuNs) {
        /** The words after the first. */
        String[] args() {
            String[] w = line.split(" ");
            String[] a = new String[w.length - 1];
            System.arraycopy(w, 1, a, 0, a.length);
            return a;
        }
    }

    static final String START = "start";
    static final String STOP = "stop";
    /** Asks the peer to report its JIT compiler's work ({@link #JIT}) until {@code start} or {@code stop}. */
    static final String JIT_ASK = "jit?";
    /** A report of the peer's JIT compiler's work so far: {@code jit <figure>} ({@link CompilerWork#sofar}). */
    static final String JIT = "jit";
    /** How often a peer asked to report its compiler's work does so. */
    private static final long JIT_REPORT_MS = 20;

    private static final long RETRY_MS = 50;

    private final Socket socket;
    private final OutputStream out;
    private final ArrayBlockingQueue<Msg> inbox = new ArrayBlockingQueue<>(256);
    private final Thread reader;
    private volatile boolean stopped;
    private volatile boolean closed;
    private volatile Msg startMark;
    private volatile Msg stopMark;
    private volatile Runnable onStop;
    private volatile IOException failure;
    private volatile long peerJit = -1;
    private volatile long peerJitAtNs;

    private Control(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.out = socket.getOutputStream();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        this.reader = Thread.ofPlatform().daemon().name("bench-control").start(() -> read(in));
    }

    /** Listens on {@code address:port} and accepts the peer within {@code timeoutMs}. */
    static Control accept(String address, int port, long timeoutMs) throws IOException {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            try {
                listener.bind(new InetSocketAddress(address, port), 1);
            } catch (java.net.BindException e) {
                throw new java.net.BindException("cannot bind the control port " + address + ":" + port + " ("
                        + e.getMessage() + "; choose another --port)");
            }
            listener.setSoTimeout((int) Math.max(1, timeoutMs));
            try {
                return new Control(listener.accept());
            } catch (SocketTimeoutException e) {
                throw new SocketTimeoutException("no peer connected to the control port " + address + ":" + port
                        + " within " + timeoutMs + " ms");
            }
        }
    }

    /** Connects from {@code local} to {@code address:port}, retrying while nobody listens, up to {@code timeoutMs}. */
    static Control connect(String address, int port, String local, long timeoutMs) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            Socket s = new Socket();
            try {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(local, 0));
                s.connect(new InetSocketAddress(address, port), (int) Math.max(1, timeoutMs));
                return new Control(s);
            } catch (ConnectException e) {
                s.close();
                if (System.nanoTime() - deadline > 0) {
                    throw new ConnectException("cannot reach the control port " + address + ":" + port + " within "
                            + timeoutMs + " ms");
                }
            } catch (IOException e) {
                s.close();
                throw e;
            }
            try {
                Thread.sleep(RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting the control port", e);
            }
        }
    }

    private void read(BufferedReader in) {
        try {
            for (String line; (line = in.readLine()) != null; ) {
                Msg m = new Msg(line, System.nanoTime(), Cpu.processNs());
                if (line.equals(START)) {
                    startMark = m;
                } else if (line.equals(STOP)) {
                    stopMark = m;
                    stopped = true;
                    Runnable r = onStop;
                    if (r != null) {
                        r.run();
                    }
                } else if (line.equals(JIT_ASK)) {
                    startJitReports();
                } else if (line.startsWith(JIT + " ")) {
                    peerJit = figure(line);
                    peerJitAtNs = m.nanoTime();
                } else if (!inbox.offer(m)) {
                    throw new IOException("control inbox overflow at '" + line + "'");
                }
            }
        } catch (IOException e) {
            if (!closed) {
                failure = e;
            }
        } finally {
            closed = true;
        }
    }

    /** The figure of a {@link #JIT} report. */
    private static long figure(String line) throws IOException {
        try {
            return Long.parseLong(line.substring(JIT.length() + 1));
        } catch (NumberFormatException e) {
            throw new IOException("malformed control line '" + line + "'", e);
        }
    }

    /**
     * Reports this process's JIT compiler's work to the peer every {@link #JIT_REPORT_MS} until the measured interval
     * starts ({@link Window}: the side that measures waits for both compilers to be quiet). A thread of its own: the
     * look reads {@code /proc} and allocates, which the data loops must not.
     */
    private void startJitReports() {
        Thread.ofPlatform().daemon().name("bench-jit").start(() -> {
            try {
                while (!closed && !stopped && startMark == null) {
                    send(JIT + " " + CompilerWork.sofar());
                    Thread.sleep(JIT_REPORT_MS);
                }
            } catch (IOException e) {
                // the connection closed: the run is over
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** The peer's last {@link #JIT} report (-1: none, or the peer cannot tell). */
    long peerCompilerWork() {
        return peerJit;
    }

    /** When the peer's last {@link #JIT} report arrived ({@link System#nanoTime}; 0: none yet). */
    long peerCompilerReportNs() {
        return peerJitAtNs;
    }

    /** Sends one line. */
    synchronized void send(String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /**
     * Waits for the next queued line, which must start with {@code word}.
     *
     * @throws TimeoutException      when none arrives by {@code deadlineNs}
     * @throws IllegalStateException when another line arrives
     * @throws IOException           when the peer closed the connection first
     */
    Msg await(String word, long deadlineNs) throws IOException, TimeoutException {
        while (true) {
            Msg m;
            try {
                m = inbox.poll(Math.min(50_000_000L, Math.max(1, deadlineNs - System.nanoTime())),
                        TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for '" + word + "'", e);
            }
            if (m != null) {
                return expect(m, word);
            }
            if (closed && inbox.isEmpty()) {
                IOException f = failure;
                throw new IOException("the peer closed the control connection while this side waited for '" + word
                        + "'" + (f == null ? "" : ": " + f.getMessage()));
            }
            if (System.nanoTime() - deadlineNs > 0) {
                throw new TimeoutException("no '" + word + "' from the peer in time");
            }
        }
    }

    /**
     * As {@link #await(String, long)}, but without blocking: runs {@code pump} between looks at the queue, for a
     * thread that must keep driving its transport (an invoker-mode engine or media driver) while it waits.
     */
    Msg await(String word, long deadlineNs, Runnable pump) throws IOException, TimeoutException {
        while (true) {
            Msg m = inbox.poll();
            if (m != null) {
                return expect(m, word);
            }
            if (closed && inbox.isEmpty()) {
                IOException f = failure;
                throw new IOException("the peer closed the control connection while this side waited for '" + word
                        + "'" + (f == null ? "" : ": " + f.getMessage()));
            }
            if (System.nanoTime() - deadlineNs > 0) {
                throw new TimeoutException("no '" + word + "' from the peer in time");
            }
            pump.run();
            Thread.onSpinWait();
        }
    }

    /** The next queued line if there is one (it must start with {@code word}), else null; never blocks. */
    Msg poll(String word) {
        Msg m = inbox.poll();
        return m == null ? null : expect(m, word);
    }

    private static Msg expect(Msg m, String word) {
        if (!m.line().equals(word) && !m.line().startsWith(word + " ")) {
            throw new IllegalStateException("unexpected control message '" + m.line() + "' (expected '" + word
                    + "')");
        }
        return m;
    }

    /** True once the peer sent {@code stop}. */
    boolean stopped() {
        return stopped;
    }

    /** The arrival of {@code start}, or null. */
    Msg startMark() {
        return startMark;
    }

    /** The arrival of {@code stop}, or null. */
    Msg stopMark() {
        return stopMark;
    }

    /** Runs {@code action} on the reader thread when {@code stop} arrives (at once if it already has). */
    void onStop(Runnable action) {
        onStop = action;
        if (stopped) {
            action.run();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        socket.close();
        try {
            reader.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

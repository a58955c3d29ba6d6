package io.jrdma.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every struct layout of {@link Structs#all()} against the C compiler: the test writes a C program that prints
 * sizeof, _Alignof and the offsetof of every named member path (nested ones included) from the installed
 * {@code <infiniband/verbs.h>} and {@code <rdma/rdma_cma.h>}, compiles it with gcc and compares. Skipped, saying
 * why, without gcc or the headers (Debian: apt-get install gcc libibverbs-dev librdmacm-dev). A test tool, not
 * shipped C code.
 */
class LayoutTest {

    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");
    private static final Path CM_HEADER = Path.of("/usr/include/rdma/rdma_cma.h");

    @TempDir
    static Path dir;

    private static Map<String, Long> measured;
    /** Why the layouts cannot be measured here, or null. Each test is skipped with it, so a report counts them. */
    private static String missing;

    @BeforeAll
    static void compile() throws Exception {
        missing = !Files.isReadable(HEADER) ? HEADER + " is missing (install libibverbs-dev)"
                : !Files.isReadable(CM_HEADER) ? CM_HEADER + " is missing (install librdmacm-dev)"
                : !onPath("gcc") ? "gcc is not on the PATH" : null;
        if (missing != null) {
            return; // an assumption failing here would hide the tests from the report (0 run, 0 skipped)
        }
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <infiniband/verbs.h>\n"
                + "#include <rdma/rdma_cma.h>\n"
                + "int main(void) {\n");
        for (Map.Entry<String, StructLayout> e : Structs.all().entrySet()) {
            String s = e.getKey();
            c.append("  printf(\"").append(s).append(" sizeof %zu\\n\", sizeof(struct ").append(s).append("));\n");
            c.append("  printf(\"").append(s).append(" alignof %zu\\n\", _Alignof(struct ").append(s).append("));\n");
            for (String path : Structs.memberOffsets(e.getValue()).keySet()) {
                c.append("  printf(\"").append(s).append(' ').append(path).append(" %zu\\n\", offsetof(struct ")
                        .append(s).append(", ").append(path).append("));\n");
            }
        }
        c.append("  printf(\"ibv_gid sizeof %zu\\n\", sizeof(union ibv_gid));\n  return 0;\n}\n");
        Path src = dir.resolve("layouts.c");
        Path exe = dir.resolve("layouts");
        Files.writeString(src, c);
        run(List.of("gcc", "-o", exe.toString(), src.toString()));
        measured = new HashMap<>();
        for (String line : run(List.of(exe.toString())).split("\n")) {
            int sp = line.lastIndexOf(' ');
            measured.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
        }
    }

    @BeforeEach
    void needsTheHeaders() {
        assumeTrue(missing == null, missing);
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + command);
        assertEquals(0, p.exitValue(), () -> command + " failed:\n" + out);
        return out;
    }

    @Test
    void shouldMatchTheCompilersSizesAndAlignments() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, StructLayout> e : Structs.all().entrySet()) {
            check(wrong, e.getKey() + " sizeof", e.getValue().byteSize());
            check(wrong, e.getKey() + " alignof", e.getValue().byteAlignment());
        }
        check(wrong, "ibv_gid sizeof", Structs.GID.byteSize());
        assertEquals(List.of(), wrong);
        assertEquals(33, Structs.all().size(), "structs checked");
    }

    @Test
    void shouldMatchTheCompilersOffsetOfEveryMember() {
        List<String> wrong = new ArrayList<>();
        int members = 0;
        for (Map.Entry<String, StructLayout> e : Structs.all().entrySet()) {
            for (Map.Entry<String, Long> m : Structs.memberOffsets(e.getValue()).entrySet()) {
                check(wrong, e.getKey() + " " + m.getKey(), m.getValue());
                members++;
            }
        }
        assertEquals(List.of(), wrong);
        assertTrue(members > 250, "members checked: " + members);
    }

    @Test
    void shouldPlaceTheOpsTheDataPathCallsWhereVerbsHDoes() {
        // the five the data path calls through, as measured: a wrong one would jump to another function
        assertEquals(measured.get("ibv_context ops.poll_cq"), ContextStructs.OPS_POLL_CQ);
        assertEquals(measured.get("ibv_context ops.req_notify_cq"), ContextStructs.OPS_REQ_NOTIFY_CQ);
        assertEquals(measured.get("ibv_context ops.post_send"), ContextStructs.OPS_POST_SEND);
        assertEquals(measured.get("ibv_context ops.post_recv"), ContextStructs.OPS_POST_RECV);
        assertEquals(measured.get("ibv_context ops.post_srq_recv"), ContextStructs.OPS_POST_SRQ_RECV);
        assertEquals(measured.get("ibv_send_wr imm_data"), WrStructs.SWR_IMM_DATA);
        assertEquals(measured.get("ibv_send_wr bind_mw.bind_info.mw_access_flags"),
                WrStructs.SWR_BIND_MW_INFO + WrStructs.BI_MW_ACCESS_FLAGS);
        assertEquals(measured.get("ibv_wc invalidated_rkey"), WrStructs.WC_INVALIDATED_RKEY);
    }

    private static void check(List<String> wrong, String key, long ours) {
        Long theirs = measured.get(key);
        if (theirs == null || theirs != ours) {
            wrong.add(key + ": gcc " + theirs + ", jrdma " + ours);
        }
    }
}

package io.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RatiosTest {

    private static final List<String> CSV = List.of(
            "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\",\"Score Error (99.9%)\",\"Unit\","
                    + "\"Param: bytes\",\"Param: payload\"",
            "\"io.jrdma.bench.IcrcBenchmark.baselineCrc32\",\"avgt\",1,3,20.0,1.5,\"ns/op\",,64",
            "\"io.jrdma.bench.IcrcBenchmark.baselineCrc32\",\"avgt\",1,3,80.0,2.0,\"ns/op\",,4096",
            "\"io.jrdma.bench.IcrcBenchmark.icrcWrite\",\"avgt\",1,3,50.0,1.0,\"ns/op\",,64",
            "\"io.jrdma.bench.IcrcBenchmark.icrcWrite\",\"avgt\",1,3,120.0,1.0,\"ns/op\",,4096",
            "\"io.jrdma.bench.RegistrationBenchmark.allocPdClose\",\"avgt\",1,1,36.0,NaN,\"ns/op\",,",
            "\"io.jrdma.bench.RegistrationBenchmark.baselineFill\",\"avgt\",1,3,200.0,9.0,\"ns/op\",4096,",
            "\"io.jrdma.bench.RegistrationBenchmark.baselineAllocateZeroed\",\"avgt\",1,3,100.0,9.0,\"ns/op\",4096,",
            "\"io.jrdma.bench.RegistrationBenchmark.registerDeregister\",\"avgt\",1,3,50.0,3.0,\"ns/op\",4096,");

    @Test
    void ratiosPairEachResultWithTheBaselinesOfItsClassAndParameters() {
        List<Ratios.Row> rows = Ratios.parse(CSV);
        assertEquals(8, rows.size());
        Ratios.Row write4096 = rows.get(3);
        assertEquals("IcrcBenchmark", write4096.className());
        assertEquals("icrcWrite", write4096.method());
        assertEquals("payload=4096", write4096.params());
        assertEquals("1.50 × baselineCrc32", Ratios.ratios(write4096, rows));
        assertEquals("2.50 × baselineCrc32", Ratios.ratios(rows.get(2), rows));
        assertEquals("(baseline)", Ratios.ratios(rows.getFirst(), rows));
        assertEquals("", Ratios.ratios(rows.get(4), rows), "no baseline has allocPdClose's (empty) parameters");
        assertEquals("0.250 × baselineFill; 0.500 × baselineAllocateZeroed", Ratios.ratios(rows.get(7), rows));
        assertTrue(Double.isNaN(rows.get(4).error()));
    }

    @Test
    void printsAMarkdownTable() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Ratios.print(Ratios.parse(CSV), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(10, lines.size());
        assertEquals("| IcrcBenchmark.icrcWrite | payload=4096 | 120 | ± 1.00 | ns/op | 1.50 × baselineCrc32 |",
                lines.get(5));
        assertEquals("| RegistrationBenchmark.allocPdClose |  | 36.00 |  | ns/op |  |", lines.get(6));
    }

    @Test
    void refusesWhatIsNotAJmhCsv() {
        assertThrows(IllegalArgumentException.class, () -> Ratios.parse(List.of()));
        assertThrows(IllegalArgumentException.class, () -> Ratios.parse(List.of("\"Name\",\"Value\"", "a,1")));
        assertThrows(IllegalArgumentException.class, () -> Ratios.parse(List.of(CSV.getFirst(),
                "\"io.jrdma.bench.X.y\",\"avgt\",1,3,abc,1,\"ns/op\",,")));
    }
}

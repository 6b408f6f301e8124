package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalarAddTest {

    static final String ORIGINAL = "Original host buffer: HostBuffer([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,"
            + " 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0])";
    static final String MODIFIED = "Modified host buffer: HostBuffer([20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0,"
            + " 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0])";

    @Test
    void printsTheTwoHostBuffersOfTheMojoPage() {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> ScalarAdd.run(ctx));
        }
        assertEquals(3, lines.size(), lines::toString);
        assertTrue(lines.get(0).startsWith("Running on cpu device 0: "), lines.get(0));
        assertEquals(ORIGINAL, lines.get(1));
        assertEquals(MODIFIED, lines.get(2));
    }

    @Test
    void mainRunsOnTheBackendNamedBySluiceApi() {
        String before = System.getProperty("sluice.api");
        System.setProperty("sluice.api", "cpu");
        try {
            List<String> lines = Stdout.lines(() -> ScalarAdd.main(new String[0]));
            assertEquals(List.of(ORIGINAL, MODIFIED), lines.subList(1, 3));
            assertTrue(lines.get(0).startsWith("Running on cpu device 0: "), lines.get(0));
        } finally {
            if (before == null) {
                System.clearProperty("sluice.api");
            } else {
                System.setProperty("sluice.api", before);
            }
        }
    }
}

package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SparkJobTest {

    @Test
    void everyRowOfTheJobIsCheckedAgainstTheHost() {
        String summary = SparkJob.run(20_000, 3, 2);
        assertTrue(summary.startsWith("SparkJob: 20000 rows in 3 partitions through y = x * x + 0.5 x + 1 on the device,"
                + " local[2], batches of 4096 rows, 3 lanes a task: every value equal to the host's, each row once ("),
                summary);
    }
}

package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FlinkJobTest {

    @Test
    void everyBatchOfTheJobIsCheckedAgainstTheHost() throws Exception {
        String summary = FlinkJob.run(6, 300, 2);
        assertTrue(summary.startsWith("FlinkJob: 6 batches of 300 floats through y = x * x + 0.5 x + 1 on the device,"
                + " parallelism 2, 4 lanes a subtask: 1800 values checked against the host, all equal ("), summary);
    }

    @Test
    void theCheckRefusesAValueThatIsNotTheHosts() {
        FlinkJob.Result wrong = new FlinkJob.Result(new float[] {0f, 2f}, new float[] {1f, 7f});
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new FlinkJob.CheckOnHost().processElement(wrong, null, null));
        assertEquals("value 1 of a batch: x = 2.0, the device gave 7.0, the host 6.0", e.getMessage());
    }
}

package dev.sluice.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;

/** Captures what a piece of code prints to {@code System.out}, from any thread, while it runs. */
final class Stdout {

    private Stdout() {
    }

    static List<String> lines(Runnable body) {
        PrintStream original = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(original);
        }
        String text = bytes.toString(UTF_8);
        original.print(text); // still visible in the test's output
        return text.lines().toList();
    }
}

package dev.sluice.benchmarks;

import java.util.List;
import java.util.function.Consumer;
import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;

/** How the main classes of this package read their command line (jopt-simple), so that all refuse the same way. */
final class CommandLine {

    private CommandLine() {
    }

    /** A parser without abbreviations: a mistyped option is refused rather than taken for another. */
    static OptionParser parser() {
        return new OptionParser(false);
    }

    /**
     * Parses {@code args} with {@code parser}, to which it adds {@code -h}/{@code --help}: for help it prints
     * {@code usage} and exits with 0; an argument that is not an option is refused; otherwise {@code read} takes the
     * options. An option the parser refuses, or a value {@code read} cannot convert (jopt-simple converts when the value
     * is read), becomes an {@link IllegalArgumentException} whose message ends with {@code usage}.
     */
    static void parse(OptionParser parser, String[] args, String usage, Consumer<OptionSet> read) {
        OptionSpec<Void> help = parser.acceptsAll(List.of("h", "help")).forHelp();
        try {
            OptionSet set = parser.parse(args);
            if (set.has(help)) {
                System.out.println(usage);
                System.exit(0);
            }
            if (!set.nonOptionArguments().isEmpty()) {
                throw new IllegalArgumentException("unknown argument " + set.nonOptionArguments().getFirst() + "\n" + usage);
            }
            read.accept(set);
        } catch (OptionException e) {
            throw new IllegalArgumentException(e.getMessage() + "\n" + usage, e);
        }
    }
}

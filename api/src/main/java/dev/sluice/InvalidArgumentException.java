package dev.sluice;

/**
 * An argument was rejected before anything was enqueued or allocated: the message names the argument,
 * its value and the bound it broke. The object the call was made on is unchanged and still usable.
 */
public class InvalidArgumentException extends SluiceException {

    /** The name of the argument. */
    private final String argument;

    /** An exception naming the {@code argument} and its {@code problem} (its value and the limit it broke). */
    public InvalidArgumentException(String argument, String problem) {
        super(argument + ": " + problem);
        this.argument = argument;
    }

    /** The name of the rejected argument, as in the method's signature. */
    public String argument() {
        return argument;
    }
}

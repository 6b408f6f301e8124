package dev.sluice;

/**
 * An argument was rejected before anything was enqueued or allocated: the message names the argument,
 * its value and the bound it broke. The object the call was made on is unchanged and still usable.
 */
public class InvalidArgumentException extends SluiceException {

    private final String argument;

    public InvalidArgumentException(String argument, String problem) {
        super(argument + ": " + problem);
        this.argument = argument;
    }

    /** The name of the rejected argument, as in the method's signature. */
    public String argument() {
        return argument;
    }
}

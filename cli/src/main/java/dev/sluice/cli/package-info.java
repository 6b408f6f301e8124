/**
 * The {@code sluice} command line tool ({@link dev.sluice.cli.Main}): {@code detect}, {@code check}, {@code bench} and
 * {@code trace}, run from the executable jar the build makes ({@code java -jar cli/target/sluice.jar}).
 */
@NullMarked
package dev.sluice.cli;

import org.jspecify.annotations.NullMarked;

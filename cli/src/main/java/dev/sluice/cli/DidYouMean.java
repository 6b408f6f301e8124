package dev.sluice.cli;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The known name closest to a misspelt one, as git and other command line tools suggest it. */
final class DidYouMean {

    private DidYouMean() {
    }

    /**
     * The name of {@code known} nearest to {@code given} (ignoring case) if it is near enough to be a slip: at most one
     * edit for names up to four letters, two for longer ones, or {@code given} is the start of exactly that name.
     */
    static Optional<String> nearest(String given, Collection<String> known) {
        String g = given.toLowerCase(Locale.ROOT);
        @Nullable String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            String n = k.toLowerCase(Locale.ROOT);
            int d = distance(g, n);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        int allowed = Math.max(g.length(), 1) <= 4 ? 1 : 2;
        boolean prefix = g.length() >= 2 && best.toLowerCase(Locale.ROOT).startsWith(g);
        return bestDistance <= allowed || prefix ? Optional.of(best) : Optional.empty();
    }

    /** {@code " (did you mean X?)"}, or nothing when no known name is near. */
    static String hint(String given, Collection<String> known) {
        return nearest(given, known).map(k -> " (did you mean " + k + "?)").orElse("");
    }

    /** Levenshtein distance, with a swap of two neighbours counting as one edit. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}

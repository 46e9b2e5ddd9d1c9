package dev.hearth.server.store;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * Mints ids: 27 characters of [0-9a-z], 10 for the millisecond and 17 random, so that ids sort by
 * creation time. Within one millisecond the random part counts up, keeping ids monotonic in this
 * process, which keyset pages rely on.
 */
public final class Ids {
    private static final Pattern ID = Pattern.compile("[0-9a-z]{27}");
    private static final BigInteger RANDOM_BOUND = BigInteger.valueOf(36).pow(17);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static long lastMillis;
    private static BigInteger lastRandom = BigInteger.ZERO;

    private Ids() {
    }

    public static synchronized String next() {
        long now = Math.max(System.currentTimeMillis(), lastMillis);
        if (now == lastMillis) {
            lastRandom = lastRandom.add(BigInteger.ONE).mod(RANDOM_BOUND);
        } else {
            lastRandom = new BigInteger(RANDOM_BOUND.bitLength() + 8, RANDOM).mod(RANDOM_BOUND.shiftRight(1));
        }
        lastMillis = now;
        return pad(Long.toString(now, 36), 10) + pad(lastRandom.toString(36), 17);
    }

    public static boolean looksLikeId(String s) {
        return s != null && ID.matcher(s).matches();
    }

    private static String pad(String s, int width) {
        return "0".repeat(width - s.length()) + s;
    }
}

package dev.hearth.client;

import java.util.Optional;

/** Where the client's access token comes from. */
public sealed interface TokenSource permits TokenSource.None, TokenSource.Fixed, KeyFileTokens, SessionTokens {

    /** The token to send, fetching or refreshing it through {@code client} when needed. */
    Optional<String> token(HearthClient client);

    /**
     * Forgets a token the server refused; true when a fresh one may be accepted (it came from a
     * cache), so the request is worth sending once more.
     */
    default boolean invalidate() {
        return false;
    }

    record None() implements TokenSource {
        @Override
        public Optional<String> token(HearthClient client) {
            return Optional.empty();
        }
    }

    record Fixed(String accessToken) implements TokenSource {
        @Override
        public Optional<String> token(HearthClient client) {
            return Optional.of(accessToken);
        }
    }

    static TokenSource none() {
        return new None();
    }

    static TokenSource of(String accessToken) {
        return new Fixed(accessToken);
    }
}

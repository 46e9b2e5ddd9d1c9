package dev.hearth.server.auth;

import dev.hearth.api.ApiException;
import dev.hearth.api.auth.EmailLoginStarted;
import dev.hearth.api.auth.EmailLoginTokens;
import dev.hearth.api.auth.EmailStart;
import dev.hearth.api.auth.EmailVerify;
import dev.hearth.api.auth.RefreshToken;
import dev.hearth.api.auth.TokenRequest;
import dev.hearth.api.auth.TokenResponse;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import dev.hearth.server.limits.RateLimits;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** HTTP routes of sign-in (no token needed): the token grant, email login, refresh, logout, JWKS. */
public final class AuthApi {
    private final TokenGrant grant;
    private final EmailLogin login;
    private final SigningKeys keys;
    private final RateLimits rates;

    private AuthApi(TokenGrant grant, EmailLogin login, SigningKeys keys, RateLimits rates) {
        this.grant = grant;
        this.login = login;
        this.keys = keys;
        this.rates = rates;
    }

    public static void register(RouteTable routes, TokenGrant grant, EmailLogin login, SigningKeys keys,
                                RateLimits rates) {
        new AuthApi(grant, login, keys, rates).routes(routes);
    }

    private void routes(RouteTable routes) {
        routes.add("POST", "/auth/token", Scope.anyone(), this::token)
                .summary("Trade a key principal's signed assertion for an access token (RFC 7523)")
                .takesJsonOrForm(TokenRequest.class).answers(Contract.of(TokenResponse.class));
        routes.add("POST", "/auth/email/start", Scope.anyone(), this::startEmail)
                .summary("Mail a sign-in code").takes(EmailStart.class).answers(Contract.of(EmailLoginStarted.class));
        routes.add("POST", "/auth/email/verify", Scope.anyone(), this::verifyEmail)
                .summary("Trade a mailed code for session tokens").takes(EmailVerify.class)
                .answers(Contract.of(EmailLoginTokens.class));
        routes.add("POST", "/auth/refresh", Scope.anyone(), this::refresh)
                .summary("New session tokens for a refresh token").takes(RefreshToken.class)
                .answers(Contract.of(EmailLoginTokens.class));
        routes.add("POST", "/auth/logout", Scope.anyone(), this::logout)
                .summary("End a session").takes(RefreshToken.class)
                .answers(Contract.fields("logged_out", Contract.of(boolean.class)));
        routes.add("GET", "/.well-known/jwks.json", Scope.anyone(), this::jwks)
                .summary("The public keys that verify access tokens (a JWK set)")
                .answers(Contract.fields("keys", new Contract.Shape.ArrayOf(new Contract.Shape.Any())));
    }

    private Reply token(Exchange ex) {
        var request = tokenRequest(ex);
        return Reply.ok(rates.signIn(ex.peer().address(), () -> grant.exchange(request.grantType(), request.assertion())));
    }

    private Reply startEmail(Exchange ex) {
        return Reply.ok(login.start(ex.body(EmailStart.class).email()));
    }

    private Reply verifyEmail(Exchange ex) {
        var request = ex.body(EmailVerify.class);
        return Reply.ok(rates.signIn(ex.peer().address(), () -> login.verify(request.email(), request.code())));
    }

    private Reply refresh(Exchange ex) {
        return Reply.ok(login.refresh(ex.body(RefreshToken.class).refreshToken()));
    }

    private Reply logout(Exchange ex) {
        login.logout(ex.body(RefreshToken.class).refreshToken());
        return Reply.ok(Map.of("logged_out", true));
    }

    private Reply jwks(Exchange ex) {
        return Reply.ok(keys.publicKeys().toJSONObject());
    }

    /** RFC 7523 clients usually send a form; JSON is accepted too. */
    private static TokenRequest tokenRequest(Exchange ex) {
        String type = ex.header("content-type").orElse("");
        if (!type.startsWith("application/x-www-form-urlencoded")) {
            return ex.body(TokenRequest.class);
        }
        var form = form(new String(ex.rawBody(), StandardCharsets.UTF_8));
        return new TokenRequest(form.get("grant_type"), form.get("assertion"));
    }

    private static Map<String, String> form(String body) {
        var fields = new HashMap<String, String>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                try {
                    fields.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException e) {
                    throw ApiException.invalidField("body", "malformed form encoding");
                }
            }
        }
        return fields;
    }
}

package dev.hearth.server.auth;

import dev.hearth.api.auth.ConsoleSignIn;
import dev.hearth.api.tenancy.PrincipalView;
import dev.hearth.server.http.ConsoleCookie;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import dev.hearth.server.limits.RateLimits;
import java.util.Map;

/**
 * HTTP routes of the web console's sign-in: a mailed code, an API key or a key file's assertion becomes an HttpOnly,
 * SameSite=Strict cookie (Secure under TLS), and logout ends it on the server. The console calls
 * everything else through the same /v1 routes a script does.
 */
public final class ConsoleApi {
    private final ConsoleSessions sessions;
    private final RateLimits rates;
    private final boolean secure;

    private ConsoleApi(ConsoleSessions sessions, RateLimits rates, boolean secure) {
        this.sessions = sessions;
        this.rates = rates;
        this.secure = secure;
    }

    /** {@code secure}: the API listener speaks TLS, so the cookie is sent over HTTPS only. */
    public static void register(RouteTable routes, ConsoleSessions sessions, RateLimits rates, boolean secure) {
        var api = new ConsoleApi(sessions, rates, secure);
        routes.add("POST", "/auth/console", Scope.anyone(), api::signIn)
                .summary("Sign the web console in (a mailed code, an API key or a key file's assertion): sets its HttpOnly cookie")
                .takes(ConsoleSignIn.class).example("{\"email\": \"ada@example.com\", \"code\": \"123456\"}")
                .answers(Contract.fields("principal", Contract.of(PrincipalView.class)));
        routes.add("POST", "/auth/console/logout", Scope.anyone(), api::logout)
                .summary("End the web console's sign-in (its cookie, and its email session)")
                .answers(Contract.fields("logged_out", Contract.of(boolean.class)));
    }

    private Reply signIn(Exchange ex) {
        var request = ex.body(ConsoleSignIn.class);
        var opened = rates.signIn(ex.peer().address(), () -> request.apiKey() != null
                ? sessions.withBearer(request.apiKey())
                : request.assertion() != null ? sessions.withAssertion(request.assertion())
                : sessions.withCode(request.email(), request.code()));
        return Reply.ok(Map.of("principal", opened.principal()))
                .header("Set-Cookie", cookie(opened.token(), opened.lifetime().toSeconds()));
    }

    private Reply logout(Exchange ex) {
        var cookie = ConsoleCookie.of(ex.header("cookie"));
        if (cookie.isPresent()) {
            ConsoleCookie.requireHeader(ex.header(ConsoleCookie.HEADER));
            sessions.logout(cookie.get());
        }
        return Reply.ok(Map.of("logged_out", true)).header("Set-Cookie", cookie("", 0));
    }

    private String cookie(String value, long maxAge) {
        return ConsoleCookie.NAME + "=" + value + "; Path=/; Max-Age=" + maxAge + "; HttpOnly; SameSite=Strict"
                + (secure ? "; Secure" : "");
    }

}

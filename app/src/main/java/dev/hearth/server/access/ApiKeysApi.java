package dev.hearth.server.access;

import static dev.hearth.server.tenancy.Action.API_KEYS;

import dev.hearth.api.access.ApiKeyView;
import dev.hearth.api.access.CreateApiKey;
import dev.hearth.server.access.ApiKeys.Created;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** HTTP routes of API keys: translation only, one named handler a route. */
public final class ApiKeysApi {
    private final ApiKeys keys;

    private ApiKeysApi(ApiKeys keys) {
        this.keys = keys;
    }

    public static void register(RouteTable routes, ApiKeys keys) {
        new ApiKeysApi(keys).routes(routes);
    }

    private void routes(RouteTable routes) {
        String one = "/workspaces/{ws}/api_keys/{apikey}";
        routes.create("/workspaces/{ws}/api_keys", Scope.workspace(API_KEYS), this::create).recalls(this::recall)
                .summary("Make an API key for yourself in this workspace (the secret is shown once)")
                .takes(CreateApiKey.class).example("{\"name\": \"ci\", \"role\": \"editor\", \"expires_in_days\": 90}")
                .answers(CREATED);
        routes.add("GET", "/workspaces/{ws}/api_keys", Scope.workspace(API_KEYS), this::list)
                .summary("The workspace's API keys (never their secrets)").paged()
                .answers(Contract.page("api_keys", ApiKeyView.class));
        routes.add("GET", one, Scope.workspace(API_KEYS), this::get)
                .summary("One API key").answers(Contract.one("api_key", ApiKeyView.class));
        routes.add("DELETE", one, Scope.workspace(API_KEYS), this::revoke)
                .summary("Revoke an API key (yours, or anyone's as an admin): refused at once from then on")
                .answers(Contract.one("api_key", ApiKeyView.class));
    }

    private Reply create(Exchange ex) {
        return created(keys.create(ex.caller(), ex.membership(), ex.body(CreateApiKey.class)));
    }

    private Reply recall(Exchange ex, String id) {
        return created(new Created(keys.get(ex.membership(), id), null));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("api_keys", keys.list(ex.membership(), ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("api_key", keys.get(ex.membership(), ex.param("apikey"))));
    }

    private Reply revoke(Exchange ex) {
        return Reply.ok(Reply.one("api_key", keys.revoke(ex.caller(), ex.membership(), ex.param("apikey"))));
    }

    private static final Contract.Shape CREATED = Contract.fields("api_key", Contract.of(ApiKeyView.class),
            "secret", Contract.nullable(String.class), "operations", Contract.arrayOf(String.class));

    /** The replay of a create keeps no secret. */
    private static Reply created(Created created) {
        return Reply.withReplay(201, body(created), body(created.redacted()));
    }

    private static Map<String, Object> body(Created created) {
        var body = new LinkedHashMap<String, Object>();
        body.put("api_key", created.apiKey());
        body.put("secret", created.secret());
        body.put("operations", List.of());
        return body;
    }
}

package dev.hearth.server.access;

import static dev.hearth.server.tenancy.Action.ACCESS_MANAGE;
import static dev.hearth.server.tenancy.Action.ACCESS_READ;

import dev.hearth.api.access.AccessView;
import dev.hearth.api.access.GrantAccess;
import dev.hearth.api.access.KeyFile;
import dev.hearth.api.access.PrincipalKeyView;
import dev.hearth.api.access.RotateKey;
import dev.hearth.api.access.UpdateAccess;
import dev.hearth.api.tenancy.PrincipalView;
import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.server.access.AccessService.Granted;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import dev.hearth.server.workspaces.WorkspaceService;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** HTTP routes of access and of /me: translation only, one named handler a route. */
public final class AccessApi {
    private final AccessService service;
    private final WorkspaceService workspaces;

    private AccessApi(AccessService service, WorkspaceService workspaces) {
        this.service = service;
        this.workspaces = workspaces;
    }

    public static void register(RouteTable routes, AccessService service, WorkspaceService workspaces) {
        new AccessApi(service, workspaces).routes(routes);
    }

    private void routes(RouteTable routes) {
        String one = "/workspaces/{ws}/access/{principal}";
        routes.create("/workspaces/{ws}/access", Scope.workspace(ACCESS_MANAGE), this::grant)
                .summary("Give a person (by email) or a new key principal a role").takes(GrantAccess.class)
                .example("{\"name\": \"ci-robot\", \"role\": \"editor\"}")
                .answers(GRANTED);
        routes.add("GET", "/workspaces/{ws}/access", Scope.workspace(ACCESS_READ), this::list)
                .summary("Who has a role here").paged().answers(Contract.page("access", AccessView.class));
        routes.add("GET", one, Scope.workspace(ACCESS_READ), this::get)
                .summary("One principal's role").answers(Contract.one("access", AccessView.class));
        routes.add("PATCH", one, Scope.workspace(ACCESS_MANAGE), this::update)
                .summary("Change a role, or a key principal's name and description").takes(UpdateAccess.class)
                .answers(Contract.one("access", AccessView.class));
        routes.add("DELETE", one, Scope.workspace(ACCESS_MANAGE), this::revoke)
                .summary("Remove a role").answers(Contract.one("access", AccessView.class));
        routes.add("POST", one + "/rotate_key", Scope.workspace(ACCESS_MANAGE), this::rotateKey)
                .summary("Issue a new key, revoking the old").mayTake(RotateKey.class).answers(GRANTED);
        routes.add("POST", one + "/revoke_key", Scope.workspace(ACCESS_MANAGE), this::revokeKey)
                .summary("Revoke a key principal's key").answers(Contract.one("access", AccessView.class));
        routes.add("GET", "/me", Scope.signedIn(), this::me)
                .summary("The caller, its workspaces, and whether it is the server's operator")
                .answers(Contract.fields("principal", Contract.of(PrincipalView.class), "operator",
                        Contract.of(boolean.class), "workspaces", new Contract.Shape.ArrayOf(Contract.fields(
                                "workspace", Contract.of(Workspace.class), "role", Contract.of(Role.class)))));
    }

    private Reply grant(Exchange ex) {
        return granted(201, service.grant(ex.caller(), ex.workspace(), ex.body(GrantAccess.class)));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("access", service.list(ex.workspace(), ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("access", service.get(ex.workspace(), ex.param("principal"))));
    }

    private Reply update(Exchange ex) {
        return Reply.ok(Reply.one("access", service.update(ex.workspace(), ex.param("principal"),
                ex.body(UpdateAccess.class))));
    }

    private Reply revoke(Exchange ex) {
        return Reply.ok(Reply.one("access", service.revoke(ex.workspace(), ex.param("principal"))));
    }

    private Reply rotateKey(Exchange ex) {
        return granted(200, service.rotateKey(ex.caller(), ex.workspace(), ex.param("principal"),
                ex.bodyOr(RotateKey.class, new RotateKey(null, null))));
    }

    private Reply revokeKey(Exchange ex) {
        ex.noBody();
        return Reply.ok(Reply.one("access", service.revokeKey(ex.workspace(), ex.param("principal"))));
    }

    private Reply me(Exchange ex) {
        var body = new LinkedHashMap<String, Object>();
        body.put("principal", ex.caller().principal().view());
        body.put("operator", ex.caller().operates());
        body.put("workspaces", workspaces.memberships(ex.caller()).stream()
                .map(m -> Map.of("workspace", m.workspace(), "role", m.role())).toList());
        return Reply.ok(body);
    }

    private static final Contract.Shape GRANTED = Contract.fields("access", Contract.of(AccessView.class),
            "key", Contract.nullable(PrincipalKeyView.class), "key_file", Contract.nullable(KeyFile.class),
            "operations", Contract.arrayOf(String.class));

    private static Reply granted(int status, Granted granted) {
        return Reply.withReplay(status, body(granted), body(granted.redacted()));
    }

    private static Map<String, Object> body(Granted g) {
        var body = new LinkedHashMap<String, Object>();
        body.put("access", g.access());
        body.put("key", g.key());
        body.put("key_file", g.keyFile());
        body.put("operations", List.of());
        return body;
    }
}

package dev.hearth.server.invitations;

import static dev.hearth.server.tenancy.Action.INVITATION_MANAGE;

import dev.hearth.api.invitations.CreateInvitation;
import dev.hearth.api.invitations.InvitationView;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;

/** HTTP routes of invitations: translation only, one named handler a route. */
public final class InvitationsApi {
    private final InvitationService service;

    private InvitationsApi(InvitationService service) {
        this.service = service;
    }

    public static void register(RouteTable routes, InvitationService service, InvitationStore store) {
        new InvitationsApi(service).routes(routes, Scope.resource("inv", "invitation", store::workspaceOf,
                INVITATION_MANAGE));
    }

    private void routes(RouteTable routes, Scope manage) {
        routes.create("/workspaces/{ws}/invitations", Scope.workspace(INVITATION_MANAGE), this::create)
                .recalls(this::recall).summary("Invite a person by email").takes(CreateInvitation.class)
                .example("{\"email\": \"ada@example.com\", \"role\": \"viewer\"}").answers(Contract.one("invitation", InvitationView.class));
        routes.add("GET", "/workspaces/{ws}/invitations", Scope.workspace(INVITATION_MANAGE), this::list)
                .summary("The workspace's invitations").paged()
                .query("state", "string", "pending (default), expired or all")
                .answers(Contract.page("invitations", InvitationView.class));
        routes.add("GET", "/invitations/{inv}", manage, this::get)
                .summary("An invitation").answers(Contract.one("invitation", InvitationView.class));
        routes.add("POST", "/invitations/{inv}/resend", manage, this::resend)
                .summary("Mail the invitation again, with a new expiry").answers(Contract.one("invitation", InvitationView.class));
        routes.add("DELETE", "/invitations/{inv}", manage, this::revoke)
                .summary("Revoke an invitation").answers(Contract.one("invitation", InvitationView.class));
        // Anyone signed in may try; the service answers 404 unless the caller is the invitee.
        routes.add("POST", "/invitations/{inv}/accept", Scope.signedIn(), this::accept)
                .summary("Accept an invitation sent to the caller's email").answers(Contract.one("invitation", InvitationView.class));
    }

    private Reply create(Exchange ex) {
        return Reply.status(201, Reply.one("invitation", service.create(ex.caller(), ex.workspace(),
                ex.body(CreateInvitation.class))));
    }

    private Reply recall(Exchange ex, String id) {
        return Reply.status(201, Reply.one("invitation", service.get(id)));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("invitations", service.list(ex.workspace(), ex.query("state").orElse("pending"),
                ex.page())));
    }

    private Reply get(Exchange ex) {
        return Reply.ok(Reply.one("invitation", service.get(ex.param("inv"))));
    }

    private Reply resend(Exchange ex) {
        ex.noBody();
        return Reply.ok(Reply.one("invitation", service.resend(ex.param("inv"))));
    }

    private Reply revoke(Exchange ex) {
        return Reply.ok(Reply.one("invitation", service.revoke(ex.param("inv"))));
    }

    private Reply accept(Exchange ex) {
        ex.noBody();
        return Reply.ok(Reply.one("invitation", service.accept(ex.caller(), ex.param("inv"))));
    }
}

package dev.hearth.server.images;

import static dev.hearth.server.tenancy.Action.COMPUTER_READ;
import static dev.hearth.server.tenancy.Action.COMPUTER_WRITE;

import dev.hearth.api.images.PullImage;
import dev.hearth.api.images.WorkspaceImage;
import dev.hearth.server.http.Contract;
import dev.hearth.server.http.Exchange;
import dev.hearth.server.http.Reply;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.http.Scope;
import java.util.List;

/** HTTP routes of a workspace's images: translation only, one named handler a route. */
public final class ImagesApi {
    private final ImageService service;

    private ImagesApi(ImageService service) {
        this.service = service;
    }

    public static void register(RouteTable routes, ImageService service) {
        new ImagesApi(service).routes(routes);
    }

    private void routes(RouteTable routes) {
        routes.create("/workspaces/{ws}/images", Scope.workspace(COMPUTER_WRITE), this::pull)
                .summary("Pull an image into the workspace (an image.pull operation)").takes(PullImage.class)
                .example("{\"reference\": \"docker.io/library/python:3.12-slim\"}")
                .statuses(202).answers(Contract.one("image", WorkspaceImage.class));
        routes.add("GET", "/workspaces/{ws}/images", Scope.workspace(COMPUTER_READ), this::list)
                .summary("The workspace's images").paged().answers(Contract.page("images", WorkspaceImage.class));
        routes.add("DELETE", "/workspaces/{ws}/images/{img}", Scope.workspace(COMPUTER_WRITE), this::remove)
                .summary("Forget an image").answers(Contract.one("image", WorkspaceImage.class));
    }

    private Reply pull(Exchange ex) {
        var pulling = service.pull(ex.workspace(), ex.body(PullImage.class).reference());
        return Reply.status(202, Reply.one("image", pulling.image(), List.of(pulling.operation().id())));
    }

    private Reply list(Exchange ex) {
        return Reply.ok(Reply.page("images", service.list(ex.workspace(), ex.page())));
    }

    private Reply remove(Exchange ex) {
        return Reply.ok(Reply.one("image", service.remove(ex.workspace(), ex.param("img"))));
    }
}

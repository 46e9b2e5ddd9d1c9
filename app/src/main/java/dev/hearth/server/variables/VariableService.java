package dev.hearth.server.variables;

import dev.hearth.api.ApiException;
import dev.hearth.api.Validate;
import dev.hearth.api.tenancy.Role;
import dev.hearth.api.tenancy.Workspace;
import dev.hearth.api.variables.CreateVariable;
import dev.hearth.api.variables.UpdateVariable;
import dev.hearth.api.variables.VariableView;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.store.Constraints;
import dev.hearth.server.store.Ids;
import dev.hearth.server.store.Page;
import dev.hearth.server.store.PageRequest;
import dev.hearth.server.tenancy.Action;
import dev.hearth.server.tenancy.Caller;
import dev.hearth.server.workspaces.Contents;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The rules of variables: named secrets of a workspace, sealed at rest, readable in full by
 * editors and admins; deleting one frees its name and leaves its row.
 */
public final class VariableService {
    public static final int MAX_VALUE_BYTES = 64 * 1024;

    private final Jdbi jdbi;
    private final VariableStore store;
    private final Keyring keyring;
    private final Clock clock;

    public VariableService(Jdbi jdbi, VariableStore store, Keyring keyring, Clock clock) {
        this.jdbi = jdbi;
        this.store = store;
        this.keyring = keyring;
        this.clock = clock;
    }

    /** What a workspace delete must wait for: its live variables. */
    public Contents contents() {
        return new Contents("variables", store::countLive);
    }

    public VariableView create(Caller caller, Workspace workspace, CreateVariable request) {
        String name = Validate.dnsLabel("name", request.name());
        String value = value(request.value());
        Instant now = now();
        String id = Ids.next();
        var sealed = keyring.seal(value, "variable:" + id);
        var variable = new Variable(id, workspace.id(), name, sealed, caller.id(), caller.id(), now, now, null);
        Constraints.unique(() -> {
            jdbi.useTransaction(h -> store.insert(h, variable));
            return null;
        }, () -> taken(name));
        return variable.view(value);
    }

    public Page<VariableView> list(Workspace workspace, Role role, boolean withDeleted, PageRequest page) {
        var rows = jdbi.withHandle(h -> store.page(h, workspace.id(), withDeleted, page));
        return Page.of(rows, page.limit(), Variable::id).map(v -> view(v, role));
    }

    public VariableView get(Workspace workspace, Role role, String ref) {
        return view(jdbi.withHandle(h -> find(h, workspace, ref)), role);
    }

    public VariableView update(Caller caller, Workspace workspace, String ref, UpdateVariable request) {
        if (request.name() == null && request.value() == null) {
            throw ApiException.invalidField("value", "give value, name or both");
        }
        String name = request.name() == null ? null : Validate.dnsLabel("name", request.name());
        String value = request.value() == null ? null : value(request.value());
        Instant now = now();
        return Constraints.unique(() -> jdbi.inTransaction(h -> {
            var old = find(h, workspace, ref);
            if (old.deletedAt() != null) {
                throw ApiException.conflict("variable " + old.name() + " is deleted; create it again");
            }
            String newValue = value != null ? value : keyring.open(old.sealed(), old.associatedData());
            var sealed = value != null ? keyring.seal(value, old.associatedData()) : old.sealed();
            var updated = new Variable(old.id(), old.workspace(), name != null ? name : old.name(), sealed,
                    old.createdBy(), caller.id(), old.createdAt(), now, null);
            store.update(h, updated);
            return updated.view(newValue);
        }), () -> taken(name));
    }

    public VariableView delete(Caller caller, Workspace workspace, String ref) {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            var variable = find(h, workspace, ref);
            if (variable.deletedAt() != null) {
                return view(variable, Role.ADMIN);
            }
            store.markDeleted(h, variable.id(), caller.id(), now);
            var deleted = new Variable(variable.id(), variable.workspace(), variable.name(), variable.sealed(),
                    variable.createdBy(), caller.id(), variable.createdAt(), now, now);
            return view(deleted, Role.ADMIN);
        });
    }

    /** Of {@code names}, those with no live variable in the workspace now (one query). */
    public Set<String> missing(String workspace, Collection<String> names) {
        return jdbi.withHandle(h -> store.missing(h, workspace, names));
    }

    /** The plaintext of a live variable, for those that need it (computers' environments). */
    public Optional<String> valueOf(String workspace, String name) {
        return jdbi.withHandle(h -> store.find(h, workspace, name))
                .filter(v -> v.deletedAt() == null && v.name().equals(name))
                .map(v -> keyring.open(v.sealed(), v.associatedData()));
    }

    private Variable find(Handle h, Workspace workspace, String ref) {
        return store.find(h, workspace.id(), ref).orElseThrow(() -> ApiException.notFound("variable " + ref));
    }

    private VariableView view(Variable v, Role role) {
        boolean mayRead = role.atLeast(Action.SECRET_READ.minimum());
        return v.view(mayRead ? keyring.open(v.sealed(), v.associatedData()) : null);
    }

    private static String value(String value) {
        Validate.required("value", value);
        if (value.getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
            throw ApiException.invalidField("value", "at most " + MAX_VALUE_BYTES + " bytes (UTF-8)");
        }
        return value;
    }

    private static ApiException taken(String name) {
        return ApiException.conflict("a variable named " + name + " already exists in this workspace");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}

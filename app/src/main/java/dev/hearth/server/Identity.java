package dev.hearth.server;

import dev.hearth.server.access.ApiKeyStore;
import dev.hearth.server.access.ApiKeys;
import dev.hearth.server.access.ApiKeysApi;
import dev.hearth.server.access.AccessService;
import dev.hearth.server.access.AccessStore;
import dev.hearth.server.access.Authorizer;
import dev.hearth.server.access.PrincipalStore;
import dev.hearth.server.auth.AccessTokens;
import dev.hearth.server.auth.AuthApi;
import dev.hearth.server.auth.AuthStore;
import dev.hearth.server.auth.ConsoleApi;
import dev.hearth.server.auth.ConsoleSessions;
import dev.hearth.server.auth.Authenticator;
import dev.hearth.server.auth.EmailLogin;
import dev.hearth.server.auth.RequestGuard;
import dev.hearth.server.auth.SigningKeys;
import dev.hearth.server.auth.TokenGrant;
import dev.hearth.server.http.Guard;
import dev.hearth.server.workspaces.WorkspaceStore;

/** Who calls and what they may do: principals, access, tokens, sign-in (the routes of each registered). */
record Identity(Guard guard, Authenticator authenticator, AccessService access, AccessStore accessStore,
                WorkspaceStore workspaceStore, AuthStore authStore, SigningKeys signingKeys,
                ConsoleSessions console) {

    static Identity wire(Ground g) {
        var config = g.config();
        var principals = new PrincipalStore();
        var accessStore = new AccessStore();
        var workspaceStore = new WorkspaceStore();
        var authStore = new AuthStore();
        var signingKeys = new SigningKeys(config.dataDir().resolve("signing-keys.json"), g.clock(),
                config.signingKeyRotation(), config.accessTokenLifetime());
        var tokens = new AccessTokens(signingKeys, g.clock(), config.accessTokenLifetime(), g.baseUrl());
        var access = new AccessService(g.jdbi(), principals, accessStore, workspaceStore, g.clock(), g.baseUrl(),
                g.baseUrl() + "/auth/token");
        var login = new EmailLogin(g.jdbi(), authStore, access, tokens, g.mailer(), g.clock(),
                config.sessionLifetime());
        var grant = new TokenGrant(g.jdbi(), principals, authStore, tokens, g.clock(), g.baseUrl());
        AuthApi.register(g.routes(), grant, login, signingKeys, g.rates());
        var apiKeys = new ApiKeys(g.jdbi(), new ApiKeyStore(), accessStore, g.clock());
        ApiKeysApi.register(g.routes(), apiKeys);
        var authenticator = new Authenticator(tokens, g.jdbi(), principals, authStore, apiKeys, g.clock());
        var console = new ConsoleSessions(g.jdbi(), authStore, authenticator, login, tokens, grant, g.clock(),
                config.sessionLifetime());
        ConsoleApi.register(g.routes(), console, g.rates(), g.baseUrl().startsWith("https:"));
        var guard = new RequestGuard(authenticator, new Authorizer(g.jdbi(), workspaceStore, accessStore), console);
        return new Identity(guard, authenticator, access, accessStore, workspaceStore, authStore, signingKeys, console);
    }
}

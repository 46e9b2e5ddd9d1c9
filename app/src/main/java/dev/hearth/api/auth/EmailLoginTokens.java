package dev.hearth.api.auth;

import dev.hearth.api.tenancy.PrincipalView;

public record EmailLoginTokens(String accessToken, String tokenType, long expiresIn, String refreshToken,
                               PrincipalView principal) {
}

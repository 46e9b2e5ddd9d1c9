package dev.hearth.api.tenancy;

/** The principal object of the wire: {@code {id, auth, email, name}}. */
public record PrincipalView(String id, String auth, String email, String name) {
}

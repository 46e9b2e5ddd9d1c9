package dev.hearth.api.access;

import dev.hearth.api.WireName;

public enum ApiKeyState implements WireName { ACTIVE, REVOKED, EXPIRED }

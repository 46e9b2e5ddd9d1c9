package dev.hearth.api.computers;

import dev.hearth.api.WireName;

public enum OnExpire implements WireName { DELETE, SLEEP }

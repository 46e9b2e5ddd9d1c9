package dev.hearth.api.network;

import java.util.List;

/** The wire form: CIDRs as text. */
public record NetworkPolicyView(boolean internet, List<String> allowOut, List<String> denyOut) {
}

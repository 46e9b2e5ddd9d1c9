package dev.hearth.server.network;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hearth.api.ApiException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code network} field of a computer as requests give it: {@code {internet, allow_out,
 * deny_out}}, each part optional (an absent one keeps its current value). Every failure names the
 * field.
 */
public final class NetworkInput {
    private NetworkInput() {
    }

    public static NetworkPolicy parse(JsonNode requested, NetworkPolicy current, NetworkSettings operator) {
        if (requested == null || requested.isNull()) {
            return current;
        }
        if (!requested.isObject()) {
            throw ApiException.invalidField("network", "must be an object {internet, allow_out, deny_out}");
        }
        requested.fieldNames().forEachRemaining(name -> {
            if (!List.of("internet", "allow_out", "deny_out").contains(name)) {
                throw ApiException.invalidField("network." + name, "unknown; the fields are internet, allow_out "
                        + "and deny_out");
            }
        });
        boolean internet = current.internet();
        if (requested.has("internet")) {
            if (!requested.get("internet").isBoolean()) {
                throw ApiException.invalidField("network.internet", "must be true or false");
            }
            internet = requested.get("internet").booleanValue();
        }
        var allow = requested.has("allow_out") ? cidrs("network.allow_out", requested.get("allow_out"))
                : current.allowOut();
        var deny = requested.has("deny_out") ? cidrs("network.deny_out", requested.get("deny_out"))
                : current.denyOut();
        for (var cidr : allow) {
            if (cidr.isPrivate() && !cidr.within(operator.allowOutPrivate())) {
                throw ApiException.invalidField("network.allow_out", cidr + " is a private or link-local network; "
                        + "computers reach only those the operator allows (hearth serve --computer-allow-out-private)");
            }
        }
        return new NetworkPolicy(internet, allow, deny);
    }

    private static List<Cidr> cidrs(String field, JsonNode list) {
        if (list == null || !list.isArray()) {
            throw ApiException.invalidField(field, "must be an array of IPv4 networks like 203.0.113.0/24");
        }
        if (list.size() > NetworkPolicy.MAX_ENTRIES) {
            throw ApiException.invalidField(field, "at most " + NetworkPolicy.MAX_ENTRIES + " networks");
        }
        var cidrs = new ArrayList<Cidr>();
        for (var item : list) {
            if (!item.isTextual()) {
                throw ApiException.invalidField(field, "must hold strings like 203.0.113.0/24");
            }
            cidrs.add(Cidr.parse(item.asText()).orElseThrow(() -> ApiException.invalidField(field,
                    item.asText() + " is not an IPv4 network like 203.0.113.0/24 (computers have IPv4 only)")));
        }
        return List.copyOf(cidrs);
    }
}

package dev.hearth.server.network;

import dev.hearth.api.ApiException;
import dev.hearth.api.network.NetworkRequest;
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

    public static NetworkPolicy parse(NetworkRequest requested, NetworkPolicy current, NetworkSettings operator) {
        if (requested == null) {
            return current;
        }
        boolean internet = requested.internet() == null ? current.internet() : requested.internet();
        var allow = requested.allowOut() == null ? current.allowOut() : cidrs("network.allow_out", requested.allowOut());
        var deny = requested.denyOut() == null ? current.denyOut() : cidrs("network.deny_out", requested.denyOut());
        for (var cidr : allow) {
            if (cidr.isPrivate() && !cidr.within(operator.allowOutPrivate())) {
                throw ApiException.invalidField("network.allow_out", cidr + " is a private or link-local network; "
                        + "computers reach only those the operator allows (hearth serve --computer-allow-out-private)");
            }
        }
        return new NetworkPolicy(internet, allow, deny);
    }

    private static List<Cidr> cidrs(String field, List<String> list) {
        if (list.size() > NetworkPolicy.MAX_ENTRIES) {
            throw ApiException.invalidField(field, "at most " + NetworkPolicy.MAX_ENTRIES + " networks");
        }
        var cidrs = new ArrayList<Cidr>();
        for (String item : list) {
            cidrs.add(Cidr.parse(item).orElseThrow(() -> ApiException.invalidField(field,
                    item + " is not an IPv4 network like 203.0.113.0/24 (computers have IPv4 only)")));
        }
        return List.copyOf(cidrs);
    }
}

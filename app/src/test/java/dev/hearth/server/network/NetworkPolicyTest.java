package dev.hearth.server.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hearth.api.ApiException;
import dev.hearth.api.Json;
import dev.hearth.api.network.NetworkRequest;
import dev.hearth.server.network.Firewall.ComputerRule;
import dev.hearth.server.sandbox.Slot;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Networks and policies as requests give them, and the nft text a policy becomes. */
@Tag("unit")
class NetworkPolicyTest {
    private static final NetworkSettings OPERATOR = new NetworkSettings(List.of(Cidr.of("10.20.0.0/16")),
            List.of(Cidr.of("192.168.50.0/24")), Optional.empty());

    private static NetworkPolicy parse(Object network) {
        return NetworkInput.parse(Json.mapper().convertValue(network, NetworkRequest.class), NetworkPolicy.DEFAULT, OPERATOR);
    }

    @Test
    void cidrsAreCanonicalAndKnowWhatIsPrivate() {
        assertEquals("10.0.0.0/8", Cidr.of("10.1.2.3/8").toString());
        assertEquals("203.0.113.7", Cidr.of("203.0.113.7").toString());
        assertTrue(Cidr.of("169.254.169.254").isPrivate());
        assertTrue(Cidr.of("0.0.0.0/0").isPrivate(), "the whole internet includes private ranges");
        assertFalse(Cidr.of("198.51.100.0/24").isPrivate());
        assertTrue(Cidr.parse("256.1.1.1").isEmpty());
        assertTrue(Cidr.parse("1.2.3.4/33").isEmpty());
        assertEquals("169.254.240.1", Services.databaseAddress(0).toString());
    }

    @Test
    void partsLeftOutKeepTheirValues() {
        var policy = parse(Map.of("internet", false, "deny_out", List.of("203.0.113.9")));
        assertFalse(policy.internet());
        var changed = NetworkInput.parse(Json.mapper().convertValue(Map.of("allow_out", List.of("198.51.100.0/24")), NetworkRequest.class),
                policy, OPERATOR);
        assertFalse(changed.internet());
        assertEquals(List.of(Cidr.of("203.0.113.9")), changed.denyOut());
        assertEquals(List.of(Cidr.of("198.51.100.0/24")), changed.allowOut());
    }

    @Test
    void privateNetworksInAllowOutOnlyWhereTheOperatorPermits() {
        assertEquals(List.of(Cidr.of("192.168.50.0/25")), parse(Map.of("allow_out", List.of("192.168.50.0/25"))).allowOut());
        var refused = assertThrows(ApiException.class, () -> parse(Map.of("allow_out", List.of("192.168.0.0/16"))));
        assertTrue(refused.getMessage().startsWith("network.allow_out: 192.168.0.0/16 is a private"),
                refused.getMessage());
        assertThrows(ApiException.class, () -> parse(Map.of("allow_out", List.of("169.254.169.254"))));
    }

    @Test
    void theRuleTextDeniesFirstThenAllowsThenClosesPrivateRangesThenDecides() {
        var text = new NftText("hearth_test", new Services(Services.ADDRESS, 5353, 7777), OPERATOR, "hvxtest").putComputer(
                new ComputerRule(new Slot(70), "ws1", new NetworkPolicy(false, List.of(Cidr.of("198.51.100.0/24")),
                        List.of(Cidr.of("198.51.100.9")))));
        int deny = text.indexOf("ip daddr { 198.51.100.9 } drop");
        int allow = text.indexOf("ip daddr { 198.51.100.0/24 } accept");
        int operator = text.indexOf("ip daddr { 10.20.0.0/16 } drop");
        int never = text.indexOf("ip daddr @never drop");
        int last = text.indexOf("add rule inet hearth_test c70 drop");
        assertTrue(0 < deny && deny < allow && allow < operator && operator < never && never < last, text);
        assertTrue(text.contains("\"hv70\" : jump c70"), text);
        assertTrue(text.contains("dnat ip to 169.254.0.1:7777"), "a sleeping computer's connections go to the waker");
        assertTrue(text.contains("th dport 53 dnat ip to 169.254.0.1:5353"), "DNS goes to the resolver's port");
    }
}

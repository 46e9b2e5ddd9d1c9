package dev.hearth.server.network;

import dev.hearth.server.agent.AgentEndpoint;
import dev.hearth.server.network.Firewall.ComputerRule;
import dev.hearth.server.network.Firewall.DatabaseRule;
import dev.hearth.server.network.Firewall.RemoteMember;
import dev.hearth.server.sandbox.Slot;

/**
 * The nft text of each change to Hearth's table. A workspace has a set of its computers'
 * addresses, a set of its sleeping ones, a map of its databases' addresses and a NAT chain; a
 * computer has a chain of its policy; two verdict maps send each computer's packets, by its veth,
 * to those chains. Removals add before they delete, so that a batch never fails on a missing part.
 */
final class NftText {
    private static final String[] MAPS = {"out_by_iif", "nat_by_iif", "in_by_iif", "to_by_oif"};
    static final int POSTGRES = 5432;
    static final int POOLER = 6432;

    private final String t;
    private final Services services;
    private final NetworkSettings settings;
    private final String overlay;

    /** {@code overlay}: the name of this instance's device to other nodes' computers ({@link Overlay}). */
    NftText(String table, Services services, NetworkSettings settings, String overlay) {
        this.t = "inet " + table;
        this.services = services;
        this.settings = settings;
        this.overlay = "\"" + overlay + "\"";
    }

    /**
     * The table's fixed part: hooks that act only on this instance's computers (their veths are
     * looked up in its maps, so other instances' computers pass untouched), and the never-set.
     */
    String base() {
        String a = services.address().host();
        return "table " + t + " {\n"
                + "  set ifaces { type ifname; }\n"
                + "  map nat_by_iif { type ifname : verdict; }\n"
                + "  map in_by_iif { type ifname : verdict; }\n"
                + "  map out_by_iif { type ifname : verdict; }\n"
                + "  map to_by_oif { type ifname : verdict; }\n"
                // By a computer's address, its workspace's chains: what may reach it from other nodes' computers.
                + "  map remote_in { type ipv4_addr : verdict; }\n"
                + "  map remote_nat { type ipv4_addr : verdict; }\n"
                + "  set never { type ipv4_addr; flags interval; elements = " + Firewall.set(Cidr.PRIVATE) + "\n  }\n"
                + "  chain prerouting { type nat hook prerouting priority dstnat; policy accept;\n"
                + "    iifname vmap @nat_by_iif\n"
                // Another node's computer (or another instance's on this host) connecting to a sleeper here.
                + "    iifname != @ifaces ip daddr vmap @remote_nat\n  }\n"
                + "  chain postrouting { type nat hook postrouting priority srcnat; policy accept;\n"
                + "    iifname @ifaces oifname != \"hv*\" masquerade\n  }\n"
                + "  chain input { type filter hook input priority filter; policy accept;\n"
                // From the overlay only what the NAT sent to the waker.
                + "    iifname " + overlay + " ct status dnat accept\n"
                + "    iifname " + overlay + " drop\n"
                + "    iifname vmap @in_by_iif\n"
                // Hearth's services address answers computers only.
                + "    ip daddr " + a + " iifname != { \"lo\", \"hv*\" } drop\n  }\n"
                + "  chain from_computer {\n"
                + "    ct state established,related accept\n"
                // DNS, the waker and the databases: only through this table's own DNATs, which are per workspace.
                + "    ip daddr " + a + " ct status dnat accept\n"
                + "    drop\n  }\n"
                + "  chain forward { type filter hook forward priority filter; policy accept;\n"
                + "    iifname vmap @out_by_iif\n"
                + "    oifname vmap @to_by_oif\n  }\n"
                + "  chain to_computer {\n"
                + "    ct state established,related accept\n"
                + "    ip daddr vmap @remote_in\n"
                + "    drop\n  }\n"
                // A SYN into the overlay asks for no more than its MTU carries (gVisor's side offers 1460).
                + "  chain clamp { type filter hook forward priority mangle; policy accept;\n"
                + "    oifname " + overlay + " tcp flags syn tcp option maxseg size set rt mtu\n  }\n"
                + "}\n";
    }

    /** The workspace's parts, then the computer's chain emptied and filled anew, then its map entries. */
    String putComputer(ComputerRule c) {
        String chain = chain(c.slot());
        var p = c.policy();
        var text = new StringBuilder(workspace(c.workspace()))
                .append("add chain ").append(t).append(' ').append(chain).append('\n')
                .append("flush chain ").append(t).append(' ').append(chain).append('\n')
                .append(rule(chain, "ct state established,related accept"))
                .append(rule(chain, "meta nfproto ipv6 drop"))
                // Agents answer hearth serve only: no computer reaches another's.
                .append(rule(chain, "tcp dport " + AgentEndpoint.PORT + " drop"))
                .append(rule(chain, "ip daddr @" + members(c.workspace()) + " accept"))
                .append(rule(chain, "ip daddr @" + remotes(c.workspace()) + " accept"));
        if (!p.denyOut().isEmpty()) {
            text.append(rule(chain, "ip daddr " + Firewall.set(p.denyOut()) + " drop"));
        }
        if (!p.allowOut().isEmpty()) {
            text.append(rule(chain, "ip daddr " + Firewall.set(p.allowOut()) + " accept"));
        }
        String internet = p.internet() ? "accept" : "drop";
        if (!settings.allowPrivate().isEmpty()) {
            text.append(rule(chain, "ip daddr " + Firewall.set(settings.allowPrivate()) + " " + internet));
        }
        return text.append(rule(chain, "ip daddr @never drop"))
                .append(rule(chain, internet))
                .append("add chain ").append(t).append(' ').append(natChain(c.slot())).append('\n')
                .append("flush chain ").append(t).append(' ').append(natChain(c.slot())).append('\n')
                .append(rule(natChain(c.slot()), "jump " + nat(c.workspace())))
                .append(elements(c.slot()))
                .append(addressed(c))
                .append("add element ").append(t).append(" ifaces { \"").append(c.slot().hostVeth()).append("\" }\n")
                .append(member(members(c.workspace()), c.slot(), true))
                .toString();
    }

    String removeComputer(ComputerRule c) {
        String veth = "{ \"" + c.slot().hostVeth() + "\" }\n";
        var text = new StringBuilder(workspace(c.workspace()));
        text.append("add chain ").append(t).append(' ').append(chain(c.slot())).append('\n')
                .append("add chain ").append(t).append(' ').append(natChain(c.slot())).append('\n')
                .append(elements(c.slot()))
                .append(addressed(c));
        for (String map : MAPS) {
            text.append("delete element ").append(t).append(' ').append(map).append(' ').append(veth);
        }
        for (String map : new String[] {"remote_in", "remote_nat"}) {
            text.append("delete element ").append(t).append(' ').append(map).append(" { ")
                    .append(c.slot().sandboxAddress()).append(" }\n");
        }
        return text + "delete element " + t + " ifaces " + veth
                + "flush chain " + t + " " + chain(c.slot()) + "\n"
                + "delete chain " + t + " " + chain(c.slot()) + "\n"
                + "flush chain " + t + " " + natChain(c.slot()) + "\n"
                + "delete chain " + t + " " + natChain(c.slot()) + "\n"
                + member(members(c.workspace()), c.slot(), false)
                + member(asleepSet(c.workspace()), c.slot(), false);
    }

    /** A computer of another node (or another instance on this host) in its workspace's remote set, or out of it. */
    String remote(RemoteMember m, boolean in) {
        String element = " " + remotes(m.workspace()) + " { " + m.address().getHostAddress() + " }\n";
        return workspace(m.workspace()) + "add element " + t + element + (in ? "" : "delete element " + t + element);
    }

    String asleep(ComputerRule c, boolean asleep) {
        return workspace(c.workspace()) + member(asleepSet(c.workspace()), c.slot(), asleep);
    }

    String putDatabase(DatabaseRule d) {
        return workspace(d.workspace()) + "add element " + t + " " + databases(d.workspace()) + " { " + targets(d) + " }\n";
    }

    String removeDatabase(DatabaseRule d) {
        String keys = d.vip().host() + " . " + POSTGRES + ", " + d.vip().host() + " . " + POOLER;
        return putDatabase(d) + "delete element " + t + " " + databases(d.workspace()) + " { " + keys + " }\n";
    }

    /** 5432 on the database's address goes to its wake proxy, 6432 to the pooler, both on the services address. */
    private String targets(DatabaseRule d) {
        String a = services.address().host();
        return d.vip().host() + " . " + POSTGRES + " : " + a + " . " + d.port() + ", "
                + d.vip().host() + " . " + POOLER + " : " + a + " . " + d.poolerPort();
    }

    /**
     * A workspace's sets, map and NAT chain ({@code add} leaves existing ones as they are): a new
     * connection to a sleeping computer goes to the waker; DNS to the resolver's port; one to a
     * database's address, to the database.
     */
    private String workspace(String workspace) {
        return "add set " + t + " " + members(workspace) + " { type ipv4_addr; }\n"
                + "add set " + t + " " + remotes(workspace) + " { type ipv4_addr; }\n"
                + "add chain " + t + " " + remoteIn(workspace) + "\n"
                + "flush chain " + t + " " + remoteIn(workspace) + "\n"
                + rule(remoteIn(workspace), "tcp dport " + AgentEndpoint.PORT + " drop")
                + rule(remoteIn(workspace), "ip saddr @" + remotes(workspace) + " accept")
                + "add set " + t + " " + asleepSet(workspace) + " { type ipv4_addr; }\n"
                + "add map " + t + " " + databases(workspace)
                + " { type ipv4_addr . inet_service : ipv4_addr . inet_service; }\n"
                + "add chain " + t + " " + nat(workspace) + "\n"
                + "flush chain " + t + " " + nat(workspace) + "\n"
                + rule(nat(workspace), "ip daddr @" + asleepSet(workspace)
                + " tcp flags & (fin | syn | rst | ack) == syn dnat ip to " + services.address().host() + ":"
                + services.wakerPort())
                + rule(nat(workspace), "ip daddr " + services.address().host() + " meta l4proto { tcp, udp } th dport 53 "
                + "dnat ip to " + services.address().host() + ":" + services.dnsPort())
                + rule(nat(workspace), "dnat ip to ip daddr . tcp dport map @" + databases(workspace));
    }

    private String rule(String chain, String rule) {
        return "add rule " + t + " " + chain + " " + rule + "\n";
    }

    /**
     * The slot's entries in the four verdict maps and the interface set. Each verdict depends on the
     * slot alone, so adding them again is a no-op (nft refuses a key added with another verdict).
     */
    private String elements(Slot slot) {
        String veth = "\"" + slot.hostVeth() + "\"";
        return "add element " + t + " out_by_iif { " + veth + " : jump " + chain(slot) + " }\n"
                + "add element " + t + " nat_by_iif { " + veth + " : jump " + natChain(slot) + " }\n"
                + "add element " + t + " in_by_iif { " + veth + " : jump from_computer }\n"
                + "add element " + t + " to_by_oif { " + veth + " : jump to_computer }\n"
                + "add element " + t + " ifaces { " + veth + " }\n";
    }

    /** The computer's address in the maps that admit its workspace's computers from elsewhere. */
    private String addressed(ComputerRule c) {
        String a = c.slot().sandboxAddress();
        return "add element " + t + " remote_in { " + a + " : jump " + remoteIn(c.workspace()) + " }\n"
                + "add element " + t + " remote_nat { " + a + " : jump " + nat(c.workspace()) + " }\n";
    }

    /** Puts the computer's address in a set, or (added first, so the delete finds it) takes it out. */
    private String member(String set, Slot slot, boolean in) {
        String element = " " + set + " { " + slot.sandboxAddress() + " }\n";
        return "add element " + t + element + (in ? "" : "delete element " + t + element);
    }

    private static String chain(Slot slot) {
        return "c" + slot.index();
    }

    /** A slot's NAT chain: it only jumps to its workspace's (the map's verdict must not depend on the workspace). */
    private static String natChain(Slot slot) {
        return "p" + slot.index();
    }

    // Workspace ids are 27 characters of [0-9a-z]; a letter in front makes each a valid nft name.
    private static String members(String workspace) {
        return "w" + workspace;
    }

    private static String remotes(String workspace) {
        return "r" + workspace;
    }

    private static String remoteIn(String workspace) {
        return "i" + workspace;
    }

    private static String asleepSet(String workspace) {
        return "z" + workspace;
    }

    private static String databases(String workspace) {
        return "d" + workspace;
    }

    private static String nat(String workspace) {
        return "n" + workspace;
    }
}

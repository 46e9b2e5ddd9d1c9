package dev.hearth.server.network;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** The answer to one query, from the asker's workspace for {@code .internal}, else from upstream. */
final class Answers {
    private static final Logger LOG = LoggerFactory.getLogger(Answers.class);
    private static final Name INTERNAL = Name.fromConstantString("internal.");
    private static final Name DB_INTERNAL = Name.fromConstantString("db.internal.");
    // Short: a computer that is deleted, or a database made again, is known by its new address soon.
    private static final long TTL = 5;
    private static final Duration UPSTREAM_TIMEOUT = Duration.ofSeconds(3);

    private final Directory directory;
    private final List<SimpleResolver> upstreams;

    Answers(Directory directory, List<InetSocketAddress> upstreams) {
        this.directory = directory;
        this.upstreams = upstreams.stream().map(a -> {
            var r = new SimpleResolver(a);
            r.setTimeout(UPSTREAM_TIMEOUT);
            return r;
        }).toList();
    }

    /** The reply's wire form; empty when the query cannot even be parsed (it is then dropped). */
    Optional<byte[]> answer(byte[] wire, InetAddress asker, int maxLength) {
        Message query;
        try {
            query = new Message(wire);
        } catch (IOException e) {
            return Optional.empty();
        }
        var workspace = directory.workspaceOf(asker);
        var question = query.getQuestion();
        Message reply;
        if (workspace.isEmpty()) {
            reply = reply(query, Rcode.REFUSED);
        } else if (query.getHeader().getOpcode() != Opcode.QUERY || question == null) {
            reply = reply(query, Rcode.NOTIMP);
        } else if (question.getName().subdomain(INTERNAL)) {
            reply = internal(query, workspace.get());
        } else {
            reply = upstream(query);
        }
        return Optional.of(reply.toWire(maxLength));
    }

    private Message internal(Message query, String workspace) {
        var question = query.getQuestion();
        Name name = question.getName();
        Optional<InetAddress> address = Optional.empty();
        if (name.labels() == 3 && name.subdomain(INTERNAL) && !name.subdomain(DB_INTERNAL)) {
            address = directory.computer(workspace, name.getLabelString(0).toLowerCase());
        } else if (name.labels() == 4 && name.subdomain(DB_INTERNAL)) {
            address = directory.database(workspace, name.getLabelString(0).toLowerCase());
        }
        if (address.isEmpty()) {
            return reply(query, name.equals(INTERNAL) || name.equals(DB_INTERNAL) ? Rcode.NOERROR : Rcode.NXDOMAIN);
        }
        var reply = reply(query, Rcode.NOERROR);
        reply.getHeader().setFlag(Flags.AA);
        if (question.getType() == Type.A || question.getType() == Type.ANY) {
            reply.addRecord(new ARecord(name, DClass.IN, TTL, address.get()), Section.ANSWER);
        }
        return reply;
    }

    private Message upstream(Message query) {
        for (var resolver : upstreams) {
            try {
                var reply = resolver.send(query);
                reply.getHeader().setID(query.getHeader().getID());
                return reply;
            } catch (IOException e) {
                LOG.debug("upstream resolver {} did not answer: {}", resolver.getAddress(), e.toString());
            }
        }
        return reply(query, Rcode.SERVFAIL);
    }

    private static Message reply(Message query, int rcode) {
        var reply = new Message(query.getHeader().getID());
        reply.getHeader().setFlag(Flags.QR);
        if (query.getHeader().getFlag(Flags.RD)) {
            reply.getHeader().setFlag(Flags.RD);
        }
        reply.getHeader().setFlag(Flags.RA);
        reply.getHeader().setRcode(rcode);
        if (query.getQuestion() != null) {
            reply.addRecord(query.getQuestion(), Section.QUESTION);
        }
        return reply;
    }
}

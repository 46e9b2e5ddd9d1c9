package dev.hearth.support;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * An upstream resolver on loopback for tests, so that the resolver computers ask forwards to it and
 * never to the host's: every name under {@code test.} is the test host's address, every other name
 * does not exist.
 */
public final class TestDns implements AutoCloseable {
    private static final Name TEST = Name.fromConstantString("test.");
    private final DatagramSocket socket;

    private TestDns(DatagramSocket socket) {
        this.socket = socket;
    }

    public static TestDns start() throws IOException {
        var socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        var dns = new TestDns(socket);
        Thread.ofVirtual().name("test-dns").start(dns::serve);
        return dns;
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    private void serve() {
        while (!socket.isClosed()) {
            try {
                var packet = new DatagramPacket(new byte[4096], 4096);
                socket.receive(packet);
                var query = new Message(Arrays.copyOf(packet.getData(), packet.getLength()));
                var reply = new Message(query.getHeader().getID());
                reply.getHeader().setFlag(Flags.QR);
                reply.addRecord(query.getQuestion(), Section.QUESTION);
                var name = query.getQuestion().getName();
                if (name.subdomain(TEST) && query.getQuestion().getType() == Type.A) {
                    reply.addRecord(new ARecord(name, DClass.IN, 60, InetAddress.getByName(TestHost.ADDRESS)),
                            Section.ANSWER);
                } else if (!name.subdomain(TEST)) {
                    reply.getHeader().setRcode(Rcode.NXDOMAIN);
                }
                byte[] wire = reply.toWire();
                socket.send(new DatagramPacket(wire, wire.length, packet.getSocketAddress()));
            } catch (IOException e) {
                // closed, or a query it could not parse
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}

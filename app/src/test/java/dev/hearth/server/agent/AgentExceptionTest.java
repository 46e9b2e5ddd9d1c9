package dev.hearth.server.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.net.ConnectException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** An agent that did not answer is said in words a person reads, never a dump of the HTTP client's state. */
class AgentExceptionTest {
    private static final AgentEndpoint AGENT = new AgentEndpoint("169.254.1.2", "c-0001", "secret");

    @Test
    void aTimeoutSaysSo() {
        var e = AgentException.unreachable(AGENT, new ExecutionException(new TimeoutException("Total timeout 40000 ms elapsed")));
        assertEquals("agent of c-0001 at 169.254.1.2: no answer in time (Total timeout 40000 ms elapsed)", e.getMessage());
        assertTrue(e.unreachable());
    }

    @Test
    void aConnectionDumpIsNotShown() {
        var e = AgentException.unreachable(AGENT, new EOFException(
                "HttpConnectionOverHTTP@2f63d570::SocketChannelEndPoint@236eb826[{l=/169.254.1.1:36588,r=/169.254.1.2:49983}]"));
        assertEquals("agent of c-0001 at 169.254.1.2: the connection ended before an answer (EOFException)", e.getMessage());
    }

    @Test
    void aShortReasonIsKeptAndARefusalIsKnown() {
        var e = AgentException.unreachable(AGENT, new ConnectException("Connection refused"));
        assertEquals("agent of c-0001 at 169.254.1.2: Connection refused", e.getMessage());
        assertTrue(e.refused());
    }
}

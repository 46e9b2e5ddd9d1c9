package dev.hearth.server;

import dev.hearth.server.checkpoints.CheckpointKinds;
import dev.hearth.server.crypto.Keyring;
import dev.hearth.server.http.RouteTable;
import dev.hearth.server.limits.RateLimits;
import dev.hearth.server.mail.Mailer;
import dev.hearth.server.metrics.Timings;
import dev.hearth.server.nodes.LocalNode;
import dev.hearth.server.operations.Operations;
import java.time.Clock;
import org.jdbi.v3.core.Jdbi;

/** What every feature of the server is built on, given to each feature's wiring. */
record Ground(Config config, Jdbi jdbi, Clock clock, String baseUrl, Keyring keyring, Mailer mailer,
              Operations operations, CheckpointKinds checkpointKinds, RouteTable routes,
              RateLimits rates, Timings timings, LocalNode node) {
}

package dev.hearth.server.computers;

import dev.hearth.server.agent.AgentClient;
import dev.hearth.server.agent.AgentSecrets;

/**
 * The parts computers are made of, built once and shared: the store and clock, the runtime (or why
 * there is none), each computer's gate and activity, its directories, and the rules built on them.
 */
record ComputerParts(ComputerRecords records, SandboxAccess access, Gates gates, Activity activity, Dirs dirs,
                     ComputerImages images, ComputerCheckpoints checkpoints, Lifecycle lifecycle, Sleeps sleeps, Restores restores,
                     Execs execs, ComputerFiles files, ComputerProcesses processes, RouteTargets routes, ComputerViews views,
                     Networking networking, ComputerUsage usage, WarmPool pool, ComputerDisks disks,
                     Agents agents, AgentHealth health, Dozes dozes) {

    static ComputerParts assemble(ComputerService.Inputs in) {
        var records = new ComputerRecords(in.jdbi(), in.store(), in.clock(), in.node());
        var access = new SandboxAccess(in.runtime(), in.unavailable());
        var networking = new Networking(in.network());
        var dozes = new Dozes(access, networking, records::now);
        var gates = new Gates(dozes);
        var activity = new Activity();
        var inFlight = new InFlight();
        var dirs = Dirs.under(in.dataDir());
        var agents = new Agents(new AgentClient(), new AgentSecrets(in.dataDir().resolve("agent-key")),
                new MainExits(records));
        var disks = new ComputerDisks(access, dirs);
        var checkpoints = new ComputerCheckpoints(in.jdbi(), in.checkpointKinds(), in.store(), records::here, gates,
                access::get, dirs, in.clock(), agents, disks);
        var environments = new Environments(in.variables());
        var images = new ComputerImages(in.jdbi(), in.images(), in.imageStore(), in.store(), checkpoints::digestsInUse);
        var boots = new Boots(records, access, dirs, environments, images, networking, in.dataDir().resolve("tools"),
                agents, disks);
        var restores = new Restores(records, access, gates, activity, dirs, checkpoints, boots, disks);
        var lifecycle = new Lifecycle(records, access, gates, images, boots, restores, agents, inFlight);
        var sleeps = new Sleeps(records, access, gates, activity, dirs, boots, networking, agents, lifecycle,
                in.sleep(), in.timings());
        var awake = new Awake(records, gates, activity, sleeps, agents);
        var execs = new Execs(access, awake, environments, images, agents, in.timings());
        var files = new ComputerFiles(awake, agents, activity);
        var processes = new ComputerProcesses(awake, agents, execs);
        var health = new AgentHealth(agents, dozes);
        return new ComputerParts(records, access, gates, activity, dirs, images, checkpoints, lifecycle, sleeps, restores,
                execs, files, processes, new RouteTargets(records, activity, sleeps, agents, gates, inFlight),
                new ComputerViews(environments, in.routerHost(), health, dozes),
                networking, new ComputerUsage(access, dirs, in.clock(), agents, dozes),
                new WarmPool(in.pool(), records, access, dirs, boots, lifecycle, images, HostMemory::available,
                        in.sleep().memoryReserveBytes()), disks, agents, health, dozes);
    }
}

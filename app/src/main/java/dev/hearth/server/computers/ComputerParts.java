package dev.hearth.server.computers;

/**
 * The parts computers are made of, built once and shared: the store and clock, the runtime (or why
 * there is none), each computer's gate and activity, its directories, and the rules built on them.
 */
record ComputerParts(ComputerRecords records, SandboxAccess access, Gates gates, Activity activity, Dirs dirs,
                     ComputerImages images, ComputerCheckpoints checkpoints, Lifecycle lifecycle, Restores restores,
                     Execs execs, RouteTargets routes, ComputerViews views, Networking networking) {

    static ComputerParts assemble(ComputerService.Inputs in) {
        var records = new ComputerRecords(in.jdbi(), in.store(), in.clock());
        var access = new SandboxAccess(in.runtime(), in.unavailable());
        var gates = new Gates();
        var activity = new Activity();
        var dirs = Dirs.under(in.dataDir());
        var checkpoints = new ComputerCheckpoints(in.jdbi(), in.checkpointKinds(), in.store(), gates, access::get, dirs,
                in.clock());
        var environments = new Environments(in.variables());
        var images = new ComputerImages(in.jdbi(), in.images(), in.imageStore(), in.store(), checkpoints::digestsInUse);
        var networking = new Networking(in.network());
        var boots = new Boots(records, access, dirs, environments, images, networking, in.dataDir().resolve("tools"));
        var restores = new Restores(records, access, gates, activity, dirs, checkpoints, boots);
        var lifecycle = new Lifecycle(records, access, gates, activity, dirs, images, boots, restores, networking);
        var execs = new Execs(records, access, gates, activity, dirs, environments, images, lifecycle);
        return new ComputerParts(records, access, gates, activity, dirs, images, checkpoints, lifecycle, restores,
                execs, new RouteTargets(records, activity, lifecycle), new ComputerViews(environments, in.routerHost()),
                networking);
    }
}

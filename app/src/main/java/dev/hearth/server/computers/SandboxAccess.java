package dev.hearth.server.computers;

import dev.hearth.api.ApiException;
import dev.hearth.api.ErrorCode;
import dev.hearth.server.images.Images;
import dev.hearth.server.process.Commands;
import dev.hearth.server.sandbox.SandboxRuntime;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The runtime computers run on, or why this server has none (not root, no runsc): every route
 * that needs it answers 503 with that reason, and runtime failures reach callers as 503 too.
 */
record SandboxAccess(Optional<SandboxRuntime> runtime, String unavailable) {

    SandboxRuntime get() {
        return runtime.orElseThrow(() -> new ApiException(ErrorCode.RUNTIME_UNAVAILABLE,
                "computers are not available on this server: " + unavailable));
    }

    void ifPresent(Consumer<SandboxRuntime> work) {
        runtime.ifPresent(work);
    }

    /** Runs a call that drives the runtime or an image; their failures answer 503 with the reason. */
    static <T> T answering(Supplier<T> call) {
        try {
            return call.get();
        } catch (Commands.Failure | Images.PullFailure e) {
            throw new ApiException(ErrorCode.RUNTIME_UNAVAILABLE, "the runtime could not run the command: " + e.getMessage());
        }
    }
}

package dev.hearth.server.computers;

/** Wire records of exec. */
public final class ExecApi {
    private ExecApi() {
    }

}

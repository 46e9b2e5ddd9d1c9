package dev.hearth.server.pool;

import java.util.List;
import java.util.Map;

/** The warm pool as an operator sees it: the sizes asked for, the sandboxes in it, and why an image's is short. */
public record PoolReport(Map<String, Integer> sizes, List<PooledSandbox> sandboxes, Map<String, String> problems) {
}

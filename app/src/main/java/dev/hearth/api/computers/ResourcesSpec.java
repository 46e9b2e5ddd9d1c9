package dev.hearth.api.computers;

public record ResourcesSpec(Double cpus, Integer memoryMb, Integer pids, Integer diskMb) {
}

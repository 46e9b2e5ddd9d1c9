// Command hearth-agent runs inside every Hearth computer as its PID 1: it starts the image's
// entrypoint and supervises it, reaps orphans, forwards signals, and keeps the computer's memory
// limit from bringing the whole sandbox down (gVisor has no out-of-memory killer of its own).
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

const usage = "usage: hearth-agent init [--memory-limit BYTES] [--] [COMMAND ARGS...]"

func main() {
	// The agent sits in every computer's memory: one P and an eager collector keep it small.
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(25)
	if len(os.Args) < 2 || os.Args[1] != "init" {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	opts, err := parseInit(os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "hearth-agent: %v\n%s\n", err, usage)
		os.Exit(2)
	}
	os.Exit(runInit(opts))
}

// Command hearth-agent runs inside every Hearth computer as its PID 1: it starts the computer's main
// process and supervises it (the restart policy), reaps orphans and forwards signals, and answers
// hearth serve (commands, files) on the computer's own address.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

const usage = "usage: hearth-agent init [--pool] [--restart always|on-failure|never] [--] [COMMAND ARGS...]"

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
	pooled.Store(opts.pool)
	if secret := os.Getenv(secretEnv); secret != "" {
		go serve(secret)
	}
	code := runInit(opts)
	settle(time.Second)
	os.Exit(code)
}

package main

import "fmt"

// initOptions is what `hearth-agent init` is told: the main process's argv (empty: wait for
// execs), and when the end of the main process ends the agent, and with it the sandbox (always,
// on-failure or never).
type initOptions struct {
	command []string
	restart string
	pool    bool // started for the warm pool: the main process comes with the claim (pool.go)
}

func parseInit(args []string) (initOptions, error) {
	opts := initOptions{restart: "on-failure"}
	for len(args) > 0 {
		switch args[0] {
		case "--":
			opts.command = args[1:]
			return opts, nil
		case "--pool":
			opts.pool = true
			args = args[1:]
		case "--restart":
			if len(args) < 2 || (args[1] != "always" && args[1] != "on-failure" && args[1] != "never") {
				return opts, fmt.Errorf("--restart is always, on-failure or never")
			}
			opts.restart = args[1]
			args = args[2:]
		default:
			opts.command = args
			return opts, nil
		}
	}
	return opts, nil
}

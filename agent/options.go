package main

import (
	"fmt"
	"strconv"
)

// initOptions is what `hearth-agent init` is told: the main process's argv (empty: wait for
// execs) and the memory the computer's processes may use together (0: no guard).
type initOptions struct {
	command     []string
	memoryLimit uint64
}

func parseInit(args []string) (initOptions, error) {
	var opts initOptions
	for len(args) > 0 {
		switch args[0] {
		case "--":
			opts.command = args[1:]
			return opts, nil
		case "--memory-limit":
			if len(args) < 2 {
				return opts, fmt.Errorf("--memory-limit needs a value")
			}
			n, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil {
				return opts, fmt.Errorf("--memory-limit %q: %v", args[1], err)
			}
			opts.memoryLimit = n
			args = args[2:]
		default:
			opts.command = args
			return opts, nil
		}
	}
	return opts, nil
}

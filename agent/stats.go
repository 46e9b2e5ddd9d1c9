package main

import (
	"net/http"
	"os"
	"strconv"
)

// stats answers what the computer runs now: its processes (gVisor's /proc lists the sandbox's own),
// the agent itself (PID 1) left out.
func stats(w http.ResponseWriter, r *http.Request) {
	answer(w, map[string]int{"processes": countProcesses()})
}

func countProcesses() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != 1 {
			n++
		}
	}
	return n
}

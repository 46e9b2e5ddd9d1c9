package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// forwarded are the signals PID 1 passes on to the main process; SIGCHLD is its own.
var forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}

// runInit starts the main process and reaps every child (orphans of execs are re-parented to PID 1,
// and an init that never waits for them leaves zombies). When the main process ends, it returns its
// exit code (128+N when signal N ended it), which ends the sandbox and has Hearth start it again,
// unless the restart policy keeps the computer up: then it waits for execs, as with no main process.
// A computer being stopped (SIGTERM or SIGINT to PID 1) ends with its main process whatever the policy.
func runInit(opts initOptions) int {
	signals := make(chan os.Signal, 32)
	signal.Notify(signals, append([]os.Signal{syscall.SIGCHLD}, forwarded...)...)
	if len(opts.command) == 0 {
		return idle(signals)
	}
	main, err := start(opts.command)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hearth-agent: cannot start %s: %v\n", strings.Join(opts.command, " "), err)
		return 127
	}
	stopping := false
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			stopping = stopping || sig == syscall.SIGTERM || sig == syscall.SIGINT
			_ = syscall.Kill(main, sig.(syscall.Signal))
			continue
		}
		code, ended := reap(main)
		if !ended {
			continue
		}
		if stopping || opts.restart == "always" || (opts.restart == "on-failure" && code != 0) {
			return code
		}
		fmt.Fprintf(os.Stderr, "hearth-agent: the main process exited with %d; the computer stays up (restart: %s)\n",
			code, opts.restart)
		return idle(signals)
	}
	return 0
}

// idle is PID 1 of a computer with no main process: it reaps, and ends on SIGTERM or SIGINT.
func idle(signals chan os.Signal) int {
	for sig := range signals {
		switch sig {
		case syscall.SIGCHLD:
			reap(-1)
		case syscall.SIGTERM, syscall.SIGINT:
			return 0
		}
	}
	return 0
}

func start(command []string) (int, error) {
	path := command[0]
	if !strings.Contains(path, "/") {
		found, err := lookPath(path)
		if err != nil {
			return 0, err
		}
		path = found
	}
	cwd, _ := os.Getwd()
	attr := &syscall.ProcAttr{Dir: cwd, Env: os.Environ(), Files: []uintptr{0, 1, 2}}
	return syscall.ForkExec(path, command, attr)
}

// reap collects every child that has ended; if the main process is among them, its exit code.
func reap(main int) (int, bool) {
	code, ended := 0, false
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return code, ended
		}
		if pid == main {
			code, ended = exitCode(status), true
		}
	}
}

func exitCode(status syscall.WaitStatus) int {
	if status.Signaled() {
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}

// lookPath finds a command in PATH as execvp(3) would.
func lookPath(name string) (string, error) {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			dir = "."
		}
		candidate := dir + "/" + name
		if info, err := os.Stat(candidate); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("%s: not found in PATH", name)
}

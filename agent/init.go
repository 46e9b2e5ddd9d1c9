package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
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
	signal.Notify(signals, append([]os.Signal{syscall.SIGCHLD, renewSignal}, forwarded...)...)
	go reapNow(signals)
	renewed := takeOver()
	main := processes.find(mainTag)
	var pending *claim
	if opts.pool && !renewed {
		if pending = awaitClaim(signals); pending == nil {
			return 0
		}
		var err error
		if opts, err = pending.apply(); err != nil {
			pending.started <- err
			return 127
		}
	}
	if renewed && (main == nil || main.ended()) || !renewed && len(opts.command) == 0 {
		report(pending, nil)
		return idle(signals)
	}
	if !renewed {
		var err error
		main, err = startMain(opts.command)
		report(pending, err)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hearth-agent: cannot start %s: %v\n", strings.Join(opts.command, " "), err)
			return 127
		}
	}
	stopping := false
	for {
		select {
		case sig := <-signals:
			switch sig {
			case renewSignal:
				renew()
			case syscall.SIGCHLD:
				children.reap()
			default:
				stopping = stopping || sig == syscall.SIGTERM || sig == syscall.SIGINT
				_ = syscall.Kill(main.Pid, sig.(syscall.Signal))
			}
		case <-main.done:
			code := *main.view().ExitCode
			if stopping || opts.restart == "always" || (opts.restart == "on-failure" && code != 0) {
				main.awaitPipes(drainAfterExit, nil)
				return code
			}
			fmt.Fprintf(os.Stderr, "hearth-agent: the main process exited with %d; the computer stays up (restart: %s)\n",
				code, opts.restart)
			return idle(signals)
		}
	}
}

// report tells a claim's caller how starting its main process went (a start without a claim: nothing).
func report(c *claim, err error) {
	if c != nil {
		c.started <- err
	}
}

// idle is PID 1 of a computer with no main process: it reaps, and ends on SIGTERM or SIGINT.
func idle(signals chan os.Signal) int {
	for sig := range signals {
		switch sig {
		case syscall.SIGCHLD:
			children.reap()
		case syscall.SIGTERM, syscall.SIGINT:
			return 0
		case renewSignal:
			renew()
		}
	}
	return 0
}

// startMain starts the main process with the agent's environment and keeps its output.
func startMain(command []string) (*proc, error) {
	path := command[0]
	if !strings.Contains(path, "/") {
		found, err := lookPath(path, os.Getenv("PATH"))
		if err != nil {
			return nil, err
		}
		path = found
	}
	mine, child, err := openPipes(false)
	if err != nil {
		return nil, err
	}
	cwd, _ := os.Getwd()
	attr := &syscall.ProcAttr{Dir: cwd, Env: environ(), Files: child.fds()}
	return launch(path, command, mainTag, true, attr, mine, child)
}

// lookPath finds a command in PATH as execvp(3) would.
func lookPath(name, path string) (string, error) {
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
	return "", &os.PathError{Op: "exec", Path: name, Err: syscall.ENOENT}
}

// renewSignal has PID 1 execute itself anew, keeping its pid, its children, its main process and
// the output it kept (see handOver): hearth serve sends it after restoring a checkpoint taken while
// the computer ran. gVisor (before release 2026-08, google/gvisor#13920 and #14147) restores a Go
// runtime's epoll instance deaf, so the old agent would accept connections and never answer them;
// the new one has a fresh runtime.
const renewSignal = syscall.SIGPWR

func renew() {
	env := handOver(os.Environ())
	err := syscall.Exec(reexecArgs[0], reexecArgs, env)
	fmt.Fprintf(os.Stderr, "hearth-agent: cannot renew itself: %v\n", err)
	resume()
}

// reapNow has the loop reap every second too: a SIGCHLD dropped while the channel was full would
// otherwise leave a command's caller waiting for a status nobody collects.
func reapNow(signals chan os.Signal) {
	for range time.Tick(time.Second) {
		select {
		case signals <- syscall.SIGCHLD:
		default:
		}
	}
}

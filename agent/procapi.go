package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// mainTag names the main process in the table and in the API (GET /processes/main).
const mainTag = "main"

// startSpec is the body of POST /processes.
type startSpec struct {
	Command []string `json:"command"`
	Env     []string `json:"env"`
	Cwd     string   `json:"cwd"`
	Tag     string   `json:"tag"`
	Stdin   bool     `json:"stdin"`
}

var signals = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL,
	"INT": syscall.SIGINT, "HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1,
	"USR2": syscall.SIGUSR2, "STOP": syscall.SIGSTOP, "CONT": syscall.SIGCONT}

func processRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /processes", startProcess)
	mux.HandleFunc("GET /processes", func(w http.ResponseWriter, r *http.Request) {
		answer(w, map[string]any{"processes": processes.list()})
	})
	mux.HandleFunc("GET /processes/{pid}", withProc(func(w http.ResponseWriter, r *http.Request, p *proc) {
		// wait=exit answers once the process has ended: hearth serve learns of the main process's end.
		if r.URL.Query().Get("wait") == "exit" {
			select {
			case <-p.done:
			case <-r.Context().Done():
				return
			}
		}
		answer(w, p.view())
	}))
	mux.HandleFunc("GET /processes/{pid}/output", withProc(output))
	mux.HandleFunc("POST /processes/{pid}/signal", withProc(signalProcess))
	mux.HandleFunc("POST /processes/{pid}/stdin", withProc(writeStdin))
}

func withProc(handle func(http.ResponseWriter, *http.Request, *proc)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := processes.find(r.PathValue("pid"))
		if p == nil {
			fail(w, http.StatusNotFound, "not_found", "no process "+r.PathValue("pid")+" is known in this computer")
			return
		}
		handle(w, r, p)
	}
}

func startProcess(w http.ResponseWriter, r *http.Request) {
	var spec startSpec
	if err := json.NewDecoder(r.Body).Decode(&spec); err != nil || len(spec.Command) == 0 {
		fail(w, http.StatusBadRequest, "invalid", "a command is required")
		return
	}
	if len(spec.Tag) > 128 || !utf8.ValidString(spec.Tag) {
		fail(w, http.StatusBadRequest, "invalid", "a tag is at most 128 characters of UTF-8")
		return
	}
	if err := processes.roomForOneMore(); err != nil {
		fail(w, http.StatusTooManyRequests, "too_many_processes", err.Error())
		return
	}
	p, err := spawnBackground(spec)
	if err != nil {
		fail(w, http.StatusBadRequest, "cannot_start", spec.Command[0]+": "+cause(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(p.view())
}

// spawnBackground starts a process in a group of its own, its output kept, its stdin a pipe the
// API writes to (or /dev/null).
func spawnBackground(spec startSpec) (*proc, error) {
	path, err := resolve(spec.Command[0], spec.Env)
	if err != nil {
		return nil, err
	}
	p, child, err := openPipes(spec.Stdin)
	if err != nil {
		return nil, err
	}
	attr := &syscall.ProcAttr{Dir: spec.Cwd, Env: spec.Env, Files: child.fds(),
		Sys: &syscall.SysProcAttr{Setpgid: true}}
	return launch(path, spec.Command, spec.Tag, false, attr, p, child)
}

// launch starts a process whose stdio are {@code child}'s ends and keeps it in the table.
func launch(path string, argv []string, tag string, main bool, attr *syscall.ProcAttr, mine, child pipes) (*proc, error) {
	var early struct {
		sync.Mutex
		p      *proc
		status *syscall.WaitStatus
	}
	// The reaper may collect the status before the process is in the table: it is kept until then.
	pid, err := children.spawnThen(path, argv, attr, func(status syscall.WaitStatus) {
		early.Lock()
		defer early.Unlock()
		if early.p == nil {
			early.status = &status
			return
		}
		early.p.exited(status)
	})
	child.close()
	if err != nil {
		mine.close()
		return nil, err
	}
	p := newProc(pid, tag, argv, time.Now().UTC(), mine)
	p.tee = main
	processes.add(p)
	early.Lock()
	early.p = p
	if early.status != nil {
		p.exited(*early.status)
	}
	early.Unlock()
	return p, nil
}

// openPipes answers the agent's ends and the child's ends of a process's stdio.
func openPipes(stdin bool) (pipes, pipes, error) {
	var mine, theirs pipes
	var err error
	if stdin {
		if theirs.stdin, mine.stdin, err = os.Pipe(); err != nil {
			return mine, theirs, err
		}
	} else if theirs.stdin, err = os.Open(os.DevNull); err != nil {
		return mine, theirs, err
	}
	if mine.stdout, theirs.stdout, err = os.Pipe(); err != nil {
		mine.close()
		theirs.close()
		return mine, theirs, err
	}
	if mine.stderr, theirs.stderr, err = os.Pipe(); err != nil {
		mine.close()
		theirs.close()
		return mine, theirs, err
	}
	return mine, theirs, nil
}

func (p pipes) fds() []uintptr {
	return []uintptr{p.stdin.Fd(), p.stdout.Fd(), p.stderr.Fd()}
}

func (p pipes) close() {
	for _, f := range []*os.File{p.stdin, p.stdout, p.stderr} {
		if f != nil {
			f.Close()
		}
	}
}

// output streams the kept output as exec frames, then (with follow) what comes until the process
// ends; the exit frame closes it once the process ended.
func output(w http.ResponseWriter, r *http.Request, p *proc) {
	follow := r.URL.Query().Get("follow") == "true"
	w.Header().Set("Content-Type", "application/x-hearth-frames")
	w.WriteHeader(http.StatusOK)
	out := &frames{w: w, flush: http.NewResponseController(w).Flush}
	_ = out.flush()
	next := 0
	for {
		ended := p.ended()
		events, after, changed := p.since(next)
		for _, e := range events {
			if out.write(e.Kind, e.Data) != nil {
				return
			}
		}
		next = after
		if ended {
			p.awaitPipes(drainAfterExit, r.Context().Done())
			events, _, _ := p.since(next)
			for _, e := range events {
				_ = out.write(e.Kind, e.Data)
			}
			out.exit(*p.view().ExitCode, false)
			return
		}
		if !follow {
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// awaitPipes gives output still in the pipes of an ended process a moment to arrive, as an
// exec's answer does: until both pipes end, {@code limit} passes or {@code gone} closes.
func (p *proc) awaitPipes(limit time.Duration, gone <-chan struct{}) {
	deadline := time.After(limit)
	for {
		p.mu.Lock()
		open, changed := p.open, p.changed
		p.mu.Unlock()
		if open == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			return
		case <-gone:
			return
		}
	}
}

func signalProcess(w http.ResponseWriter, r *http.Request, p *proc) {
	var body struct {
		Signal string `json:"signal"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	sig, ok := signals[body.Signal]
	if !ok {
		fail(w, http.StatusBadRequest, "invalid", "signal is one of TERM, KILL, INT, HUP, QUIT, USR1, USR2, STOP, CONT")
		return
	}
	if !p.ended() {
		// Its group first (a shell's children get it too), then itself, which may have left it.
		_ = syscall.Kill(-p.Pid, sig)
		if err := syscall.Kill(p.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			fail(w, http.StatusBadRequest, "failed", cause(err))
			return
		}
	}
	answer(w, p.view())
}

func writeStdin(w http.ResponseWriter, r *http.Request, p *proc) {
	if err := p.feed(r.Body, r.URL.Query().Get("close") == "true"); err != nil {
		fail(w, http.StatusConflict, "no_stdin", cause(err))
		return
	}
	answer(w, p.view())
}

package main

import (
	"sync"
	"syscall"
)

// reaper is PID 1's single wait loop. Every child ends up here (orphans are re-parented to PID 1),
// so a command the agent started must get its exit status through the reaper rather than its own
// wait, which would race the loop for it. spawn registers a child under the same lock the loop
// takes, so a status is never collected before someone waits for it.
type reaper struct {
	mu      sync.Mutex
	waiting map[int]chan syscall.WaitStatus
}

var children = &reaper{waiting: map[int]chan syscall.WaitStatus{}}

// spawn starts a process and answers a channel that gets its wait status once it ends.
func (r *reaper) spawn(path string, argv []string, attr *syscall.ProcAttr) (int, <-chan syscall.WaitStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, err := syscall.ForkExec(path, argv, attr)
	if err != nil {
		return 0, nil, err
	}
	ended := make(chan syscall.WaitStatus, 1)
	r.waiting[pid] = ended
	return pid, ended, nil
}

// reap collects every child that has ended, hands the statuses of spawned ones to their waiters
// and answers whether {@code main} was among the rest, with its exit code.
func (r *reaper) reap(main int) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	code, ended := 0, false
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return code, ended
		}
		if waiter, ok := r.waiting[pid]; ok {
			delete(r.waiting, pid)
			waiter <- status
		} else if pid == main {
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

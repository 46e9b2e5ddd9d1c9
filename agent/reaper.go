package main

import (
	"sync"
	"syscall"
)

// reaper is PID 1's single wait loop. Every child ends up here (orphans are re-parented to PID 1),
// so a command the agent started must get its exit status through the reaper rather than its own
// wait, which would race the loop for it. spawn registers a child under the same lock the loop
// takes, so a status is never collected before someone waits for it.
// The reaper tells a waiter under its lock, so holding the lock (see handOver) keeps every
// status where it is: either told, or not yet collected.
type reaper struct {
	mu      sync.Mutex
	waiting map[int]func(syscall.WaitStatus)
}

var children = &reaper{waiting: map[int]func(syscall.WaitStatus){}}

// spawn starts a process and answers a channel that gets its wait status once it ends.
func (r *reaper) spawn(path string, argv []string, attr *syscall.ProcAttr) (int, <-chan syscall.WaitStatus, error) {
	ended := make(chan syscall.WaitStatus, 1)
	pid, err := r.spawnThen(path, argv, attr, func(status syscall.WaitStatus) { ended <- status })
	return pid, ended, err
}

// spawnThen starts a process and calls {@code exited} with its wait status once it ends.
func (r *reaper) spawnThen(path string, argv []string, attr *syscall.ProcAttr, exited func(syscall.WaitStatus)) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, err := syscall.ForkExec(path, argv, attr)
	if err == nil {
		r.waiting[pid] = exited
	}
	return pid, err
}

// watch has a child started by an earlier self of the agent told to {@code exited}.
func (r *reaper) watch(pid int, exited func(syscall.WaitStatus)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiting[pid] = exited
}

// reap collects every child that has ended and tells the waiters of the ones started here.
func (r *reaper) reap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
		if exited, ok := r.waiting[pid]; ok {
			delete(r.waiting, pid)
			exited(status)
		}
	}
}

func exitCode(status syscall.WaitStatus) int {
	if status.Signaled() {
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}

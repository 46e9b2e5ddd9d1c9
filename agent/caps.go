package main

import (
	"syscall"
	"unsafe"
)

// A pooled sandbox's PID 1 starts with CAP_SYS_ADMIN only to name its computer at the claim
// (sethostname); dropSysAdmin takes it from every thread's bounding, effective, permitted and
// inheritable sets before the main process or any command starts, so nothing started by the agent
// ever has it: the same capabilities as a computer started cold.

const (
	capSysAdmin   = 21
	prCapbsetDrop = 24
	capVersion3   = 0x20080522
)

type capHeader struct {
	version uint32
	pid     int32
}

type capData struct {
	effective, permitted, inheritable uint32
}

func dropSysAdmin() error {
	if _, _, errno := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, prCapbsetDrop, capSysAdmin, 0); errno != 0 {
		return errno
	}
	hdr := capHeader{version: capVersion3}
	var data [2]capData
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)),
		uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return errno
	}
	data[0].effective &^= 1 << capSysAdmin
	data[0].permitted &^= 1 << capSysAdmin
	data[0].inheritable &^= 1 << capSysAdmin
	if _, _, errno := syscall.AllThreadsSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)),
		uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return errno
	}
	return nil
}

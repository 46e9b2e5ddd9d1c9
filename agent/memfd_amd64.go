package main

// sysMemfdCreate is memfd_create(2), which the syscall package does not name on amd64.
const sysMemfdCreate = 319

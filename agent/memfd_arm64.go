package main

// sysMemfdCreate is memfd_create(2), which the syscall package does not name on arm64.
const sysMemfdCreate = 279

/* pty.c: pseudo-terminals, for the interactive terminal and for processes started on one. */
#include "agent.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

void set_window(int master, long long cols, long long rows)
{
    if (cols <= 0 || rows <= 0 || cols > 10000 || rows > 10000)
        return;
    struct winsize w = {(unsigned short)rows, (unsigned short)cols, 0, 0};
    ioctl(master, TIOCSWINSZ, &w);
}

int open_pty(int *master, int *slave)
{
    *master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master < 0)
        return errno;
    int unlock = 0;
    unsigned number = 0;
    char name[32];
    if (ioctl(*master, TIOCSPTLCK, &unlock) < 0 || ioctl(*master, TIOCGPTN, &number) < 0) {
        int err = errno;
        close(*master);
        return err;
    }
    snprintf(name, sizeof name, "/dev/pts/%u", number);
    *slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*slave < 0) {
        int err = errno;
        close(*master);
        return err;
    }
    return 0;
}

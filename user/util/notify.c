// SPDX-License-Identifier: GPL-2.0
/*
 * The service manager's readiness protocol (sd_notify(3)), without
 * libsystemd: under a unit of Type=notify, systemd gives the path of a
 * datagram socket in NOTIFY_SOCKET ('@' for the abstract namespace),
 * and a state is one datagram of "NAME=VALUE" lines.  Elsewhere there is
 * no socket and nothing is sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "util/util.h"

int iolat_notify(const char *fmt, ...)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = getenv("NOTIFY_SOCKET");
	socklen_t len;
	char msg[512];
	va_list ap;
	ssize_t n;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return 0;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   offsetof(struct sockaddr_un, sun_path) + len);
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

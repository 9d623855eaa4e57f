/*
 * safefile.h - how leapclockd opens a file it reads (the key file, the NTS
 * certificate and key, the NTS cookie keys): never waiting in open(),
 * regular files only.
 *
 * A FIFO (or a terminal, a socket's node) opened plainly for reading
 * blocks in open() until a writer comes: the daemon's loop then stops, the
 * page with it, and SIGTERM waits (issue 28 item 10). Opened with
 * O_NONBLOCK, open() returns at once; fstat() then refuses anything but a
 * regular file, and O_NONBLOCK is cleared again for the reads (it means
 * nothing for a regular file, but a file swapped for another kind between
 * the checks must not be read half).
 *
 * Static functions in a header: keys.c, nts.c and ntske.c are each also
 * compiled alone by a test or a fuzzer, which then needs nothing more.
 */
#ifndef LD_SAFEFILE_H
#define LD_SAFEFILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LD_SF_NOFOLLOW 1 /* refuse a symbolic link as the last component */

/* What kind of file st is, for a message: "a FIFO", "a directory", ... */
static inline const char *ld_sf_kind(const struct stat *st)
{
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return "of another kind";
}

/* Opens path for reading without waiting; a regular file only. Returns
 * the fd (O_CLOEXEC, blocking again) and *st, or -1 with the reason in
 * why ("No such file or directory", "a FIFO, not a regular file"). */
static inline int ld_sf_open(const char *path, int flags, struct stat *st,
                             char *why, size_t whylen)
{
	int fd, fl;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
	                        ((flags & LD_SF_NOFOLLOW) ? O_NOFOLLOW : 0));
	if (fd < 0) {
		snprintf(why, whylen, "%s", errno == ELOOP && (flags & LD_SF_NOFOLLOW)
		                                    ? "a symbolic link: refused"
		                                    : strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "%s, not a regular file: refused",
		         ld_sf_kind(st));
		close(fd);
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads a whole regular file of at most max bytes into a new buffer
 * (NUL-terminated; *len bytes before the NUL). Returns 0, or -1 with the
 * reason in why. *st is the file's, for a mode check. Free the buffer
 * with ld_sf_free (it may hold secrets). */
static inline int ld_sf_read(const char *path, int flags, size_t max,
                             char **buf, size_t *len, struct stat *st,
                             char *why, size_t whylen)
{
	size_t got = 0, cap;
	char *b;
	int fd = ld_sf_open(path, flags, st, why, whylen);

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	if ((uint64_t)st->st_size > max) {
		snprintf(why, whylen, "longer than %zu bytes", max);
		close(fd);
		return -1;
	}
	cap = (size_t)st->st_size + 1;
	b = malloc(cap + 1);
	if (b == NULL) {
		snprintf(why, whylen, "out of memory");
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t r = read(fd, b + got, cap - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			break;
		}
		if (r == 0) {
			close(fd);
			b[got] = '\0';
			*buf = b;
			*len = got;
			return 0;
		}
		got += (size_t)r;
		if (got == cap) {
			snprintf(why, whylen, "grew while read");
			break;
		}
	}
	close(fd);
	memset(b, 0, got);
	free(b);
	return -1;
}

/* Wipes and frees what ld_sf_read gave. */
static inline void ld_sf_free(char *buf, size_t len)
{
	if (buf == NULL)
		return;
	/* a volatile pointer, so that the wipe is not optimised away */
	for (volatile char *p = buf; p < buf + len; p++)
		*p = 0;
	free(buf);
}

#endif

/*
 * cmd_run.c - `leapclock run`: runs an unmodified program on leapclock's
 * clocks (exact leaps, a smear, or a rehearsal of a leap second) by
 * preloading libleapclock-preload.so. Checks first that the shim can cover
 * the program: a statically linked program (static-pie included), a Go
 * binary (which reads the vDSO itself), a set-id program (whose loader
 * ignores LD_PRELOAD), or a script run by one of those, is refused with a
 * plain message, exit 2.
 */
#include "cli.h"

#include "../../preload/env.h"
#include "../../preload/sandbox.h"
#include "sbfilter.h"
#include "timekeeper.h"
#include "timeline.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CMD "run"
#define PRELOAD_NAME "libleapclock-preload.so"

const char lc_cmd_run_summary[] =
    "run a program with smeared time, exact leaps or a leap rehearsal";

void lc_cmd_run_usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclock run [--mode exact|smear:PRESET] "
	        "[--pretend TIME | --leap-in DUR [--delete]]\n"
	        "                     [--leapfile FILE] [--timeline PATH] "
	        "[--debug] "
	        "-- PROGRAM [ARGS...]\n"
	        "       leapclock run --sandbox [--pretend TIME] [--leapfile FILE] "
	        "[--debug]\n"
	        "                     -- PROGRAM [ARGS...]\n\n"
	        "Runs PROGRAM with libleapclock-preload.so preloaded, so that "
	        "its clocks are\nleapclock's: CLOCK_REALTIME applies leap "
	        "seconds exactly at the boundary\n(exact) or smears them "
	        "(smear:PRESET), CLOCK_TAI is true TAI, absolute\nrealtime "
	        "timers fire when the program's own clock reaches them, and "
	        "setting\nthe clock fails with EPERM. The host clock is "
	        "never touched.\n\n"
	        "options:\n"
	        "  --mode MODE     exact (default) or smear:PRESET (google, "
	        "ntpd, chrony,\n"
	        "                  fbclock, utc-sls, minute, cosine, windows,\n"
	        "                  ntp-classic, aws)\n"
	        "  --pretend TIME  the program's realtime starts at TIME "
	        "(ISO 8601, e.g.\n"
	        "                  2016-12-31T23:59:50Z) and runs on from "
	        "there\n"
	        "  --leap-in DUR   a synthetic leap second DUR after the start "
	        "(10s, 1500ms,\n"
	        "                  2m): the realtime starts DUR before the "
	        "end of today's UTC\n"
	        "                  day, at whose end the table gets one more "
	        "leap\n"
	        "  --delete        with --leap-in: a deleted second instead of "
	        "an inserted one\n"
	        "  --leapfile F    the leap table (default: the system's)\n"
	        "  --timeline PATH read the timeline page PATH (a rehearsal "
	        "that leapclockd\n"
	        "                  --timeline PATH --pretend TIME publishes) "
	        "instead of the\n"
	        "                  host's /run/leapclock/timeline\n"
	        "  --sandbox       the program gets its own system clock: "
	        "clock_settime,\n"
	        "                  settimeofday, adjtimex, adjtime... set it "
	        "(Linux's adjtimex,\n"
	        "                  leaps armed by STA_INS/STA_DEL), for every "
	        "process of the\n"
	        "                  program; the host clock is never touched "
	        "(CAP_SYS_TIME is\n"
	        "                  dropped). It starts at the host's time, or "
	        "at --pretend TIME\n"
	        "  --debug         the shim prints its configuration to "
	        "stderr\n"
	        "  -h, --help      this help\n\n"
	        "exit status: PROGRAM's, or 2 for a usage error or a program "
	        "the shim cannot\ncover (statically linked or static-pie, Go, "
	        "32-bit, set-id, or a script run\nby one, or whose \"#!\" "
	        "interpreters nest more than 4 deep), 127 if PROGRAM\ncannot "
	        "be run.\n"
	        "See leapclock-run(1) and docs/preload.md.\n");
}

/* ---- what kind of program is it? ----------------------------------------- */

enum kind {
	K_DYNAMIC,
	K_STATIC,
	K_STATIC_PIE,
	K_GO,
	K_OTHER_ELF,
	K_NOT_ELF,
	K_UNREADABLE
};

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len ? 0 : -1;
}

/*
 * A program with PT_DYNAMIC but no PT_INTERP: a -static-pie executable
 * (it relocates itself; nothing reads LD_PRELOAD) or the dynamic loader run
 * directly (ld-linux-x86-64.so.2 PROGRAM, which does preload). The loader
 * has a DT_SONAME and no DF_1_PIE; a static-pie is marked DF_1_PIE and has
 * no soname.
 */
static int is_loader(int fd, const Elf64_Phdr *dynph)
{
	int soname = 0, pie = 0;

	for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= dynph->p_filesz &&
	                     o < 65536 * sizeof(Elf64_Dyn);
	     o += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;

		if (read_at(fd, &d, sizeof(d), dynph->p_offset + o) < 0 ||
		    d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_SONAME)
			soname = 1;
		if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE))
			pie = 1;
	}
	return soname && !pie;
}

/* Reads the ELF headers: PT_INTERP (or the loader's own PT_DYNAMIC) says
 * it is dynamically linked, so that LD_PRELOAD applies; PT_DYNAMIC alone is
 * a static-pie, static. A .go.buildinfo or .note.go.buildid section (or a
 * "Go" note) says Go. Reads ELF64 little-endian (the platforms the shim builds on);
 * another ELF class is K_OTHER_ELF, no ELF at all K_NOT_ELF. */
static enum kind elf_kind(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph, dynph;
	Elf64_Shdr sh, strsh;
	char name[32];
	int fd, interp = 0, dyn = 0, go = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return K_UNREADABLE;
	if (read_at(fd, &eh, sizeof(eh), 0) < 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		close(fd);
		return K_NOT_ELF;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		/* a 32-bit (or big-endian) program: the loader would skip
		 * the 64-bit shim with a warning and run it on the host's
		 * clock */
		close(fd);
		return K_OTHER_ELF;
	}
	for (unsigned i = 0; i < eh.e_phnum && i < 4096; i++) {
		if (read_at(fd, &ph, sizeof(ph),
		            eh.e_phoff + (uint64_t)i * eh.e_phentsize) < 0)
			break;
		if (ph.p_type == PT_INTERP)
			interp = 1;
		if (ph.p_type == PT_DYNAMIC) {
			dyn = 1;
			dynph = ph;
		}
		if (ph.p_type == PT_NOTE && ph.p_filesz >= 16 &&
		    ph.p_filesz < 65536) {
			/* the Go build ID note: name "Go\0\0", type 4 */
			unsigned char note[65536];
			uint64_t o = 0;

			if (read_at(fd, note, ph.p_filesz, ph.p_offset) < 0)
				continue;
			while (o + 12 <= ph.p_filesz) {
				uint32_t nsz, dsz, type;

				memcpy(&nsz, note + o, 4);
				memcpy(&dsz, note + o + 4, 4);
				memcpy(&type, note + o + 8, 4);
				if (nsz == 3 && o + 15 <= ph.p_filesz &&
				    memcmp(note + o + 12, "Go", 3) == 0 &&
				    type == 4)
					go = 1;
				o += 12 + ((nsz + 3u) & ~3u) +
				     ((dsz + 3u) & ~3u);
			}
		}
	}
	if (eh.e_shstrndx != SHN_UNDEF && eh.e_shstrndx < eh.e_shnum &&
	    read_at(fd, &strsh, sizeof(strsh),
	            eh.e_shoff + (uint64_t)eh.e_shstrndx * eh.e_shentsize) ==
	            0) {
		for (unsigned i = 0; i < eh.e_shnum && i < 65536 && !go; i++) {
			if (read_at(fd, &sh, sizeof(sh),
			            eh.e_shoff + (uint64_t)i * eh.e_shentsize) <
			            0 ||
			    sh.sh_name >= strsh.sh_size)
				continue;
			memset(name, 0, sizeof(name));
			if (pread(fd, name, sizeof(name) - 1,
			          (off_t)(strsh.sh_offset + sh.sh_name)) <= 0)
				continue;
			if (strcmp(name, ".go.buildinfo") == 0 ||
			    strcmp(name, ".note.go.buildid") == 0 ||
			    strcmp(name, ".gopclntab") == 0)
				go = 1;
		}
	}
	/* PT_DYNAMIC without PT_INTERP: no loader is run, unless this is
	 * the loader itself (run directly, it does read LD_PRELOAD) */
	if (dyn && !interp && !go && !is_loader(fd, &dynph)) {
		close(fd);
		return K_STATIC_PIE;
	}
	close(fd);
	if (go)
		return K_GO;
	return dyn ? K_DYNAMIC : K_STATIC;
}

/* PROGRAM as execvp would find it (into buf); -1 if not found. */
static int find_program(const char *prog, char *buf, size_t size)
{
	const char *path = getenv("PATH"), *p, *e;

	if (strchr(prog, '/') != NULL) {
		if ((size_t)snprintf(buf, size, "%s", prog) >= size)
			return -1;
		return access(buf, F_OK) == 0 ? 0 : -1;
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		size_t n;

		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if ((size_t)snprintf(buf, size, "%.*s/%s", (int)n,
		                     n ? p : ".", prog) >= size)
			continue;
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* The interpreter of a "#!" script (into buf) and the rest of the line,
 * the one argument the kernel passes (into arg, "" if none), or -1. */
static int script_interp(const char *path, char *buf, size_t size, char *arg,
                         size_t asize)
{
	char line[256];
	FILE *f = fopen(path, "re");
	size_t i = 2, j = 0, n;

	if (f == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) == NULL || line[0] != '#' ||
	    line[1] != '!') {
		fclose(f);
		return -1;
	}
	fclose(f);
	while (line[i] == ' ' || line[i] == '\t')
		i++;
	while (line[i] && line[i] != ' ' && line[i] != '\t' &&
	       line[i] != '\n' && j + 1 < size)
		buf[j++] = line[i++];
	buf[j] = '\0';
	while (line[i] == ' ' || line[i] == '\t')
		i++;
	n = strcspn(line + i, "\n");
	while (n > 0 && (line[i + n - 1] == ' ' || line[i + n - 1] == '\t'))
		n--;
	snprintf(arg, asize, "%.*s", (int)n, line + i);
	return j > 0 ? 0 : -1;
}

/* The program `env ARG` runs (into buf), as env(1) reads its options:
 * -S/--split-string splits ARG into words, -u/-C take a value, NAME=VALUE
 * sets a variable; the first other word is the program. -1 if none. */
static int env_program(const char *arg, char *buf, size_t size)
{
	char words[256], *w, *save = NULL;
	int split = 0, skip = 0;

	if (strncmp(arg, "-S", 2) == 0 || strncmp(arg, "--split-string", 14) == 0)
		split = 1;
	if (!split) {
		/* one argument: env looks it up as a whole */
		if (arg[0] == '\0' || arg[0] == '-' || strchr(arg, '=') != NULL)
			return -1;
		snprintf(buf, size, "%s", arg);
		return 0;
	}
	snprintf(words, sizeof(words), "%s", arg);
	for (w = strtok_r(words, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save)) {
		if (skip) {
			skip = 0;
			continue;
		}
		if (strcmp(w, "-S") == 0 || strcmp(w, "--split-string") == 0 ||
		    strcmp(w, "--") == 0 || strncmp(w, "--", 2) == 0)
			continue; /* --unset=X, --chdir=X, --ignore-environment */
		if (strcmp(w, "-u") == 0 || strcmp(w, "-C") == 0) {
			skip = 1;
			continue;
		}
		if (strncmp(w, "-S", 2) == 0) {
			w += 2; /* -Sprogram */
		} else if (w[0] == '-') {
			continue; /* -i, -0, -v, - */
		}
		if (strchr(w, '=') != NULL)
			continue;
		snprintf(buf, size, "%s", w);
		return 0;
	}
	return -1;
}

/* The kernel runs at most 4 levels of "#!" interpreters (a fifth is
 * ELOOP): so does the check, instead of recursing without end on a script
 * that names itself. */
#define INTERP_DEPTH_MAX 4

/* 0 if the shim can cover PROGRAM; else prints why and returns 2. */
static int check_program(const char *prog, int depth)
{
	char path[PATH_MAX], interp[PATH_MAX], arg[256], envprog[PATH_MAX];
	struct stat st;
	const char *base;
	enum kind k;
	int rc;

	if (find_program(prog, path, sizeof(path)) < 0)
		return 0; /* let exec report it */
	/* A script runs its interpreter, which is what the shim must
	 * cover; through env(1), the program env runs. */
	if (script_interp(path, interp, sizeof(interp), arg, sizeof(arg)) ==
	    0) {
		if (depth >= INTERP_DEPTH_MAX) {
			fprintf(stderr,
			        "leapclock run: %s: more than %d levels of "
			        "\"#!\" interpreters (a script that names "
			        "itself, or scripts that name each other): "
			        "the kernel would refuse to run it (ELOOP).\n",
			        path, INTERP_DEPTH_MAX);
			return LC_EXIT_USAGE;
		}
		base = strrchr(interp, '/');
		base = base != NULL ? base + 1 : interp;
		if (strcmp(base, "env") == 0) {
			if (env_program(arg, envprog, sizeof(envprog)) < 0)
				return 0; /* nothing to find; env reports it */
			snprintf(interp, sizeof(interp), "%s", envprog);
		}
		rc = check_program(interp, depth + 1);
		if (rc != 0 && depth == 0)
			fprintf(stderr,
			        "leapclock run: (%s is run by its \"#!\" "
			        "interpreter %s)\n",
			        path, interp);
		return rc;
	}
	if (stat(path, &st) == 0 &&
	    (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	     ((st.st_mode & S_ISGID) && st.st_gid != getegid()))) {
		fprintf(stderr,
		        "leapclock run: %s is set-user/group-ID: its loader "
		        "ignores LD_PRELOAD, so the shim cannot give it "
		        "leapclock's clocks.\n",
		        path);
		return LC_EXIT_USAGE;
	}
	k = elf_kind(path);
	if (k == K_STATIC) {
		fprintf(stderr,
		        "leapclock run: %s is statically linked: LD_PRELOAD "
		        "cannot interpose its time calls, so the shim cannot "
		        "give it leapclock's clocks. Link it dynamically, or "
		        "link it against libleapclock.\n",
		        path);
		return LC_EXIT_USAGE;
	}
	if (k == K_STATIC_PIE) {
		fprintf(stderr,
		        "leapclock run: %s is statically linked (static-pie: "
		        "PT_DYNAMIC but no PT_INTERP, it relocates itself and "
		        "no dynamic loader runs): LD_PRELOAD cannot interpose "
		        "its time calls, so the shim cannot give it leapclock's "
		        "clocks. Link it dynamically, or link it against "
		        "libleapclock.\n",
		        path);
		return LC_EXIT_USAGE;
	}
	if (k == K_OTHER_ELF) {
		fprintf(stderr,
		        "leapclock run: %s is not a 64-bit little-endian "
		        "program: the dynamic loader would skip the 64-bit "
		        "shim and run it on the host's clock.\n",
		        path);
		return LC_EXIT_USAGE;
	}
	if (k == K_GO) {
		fprintf(stderr,
		        "leapclock run: %s is a Go program: the Go runtime "
		        "reads the clock through the vDSO itself, not through "
		        "the C library, so the shim cannot give it leapclock's "
		        "clocks.\n",
		        path);
		return LC_EXIT_USAGE;
	}
	return 0;
}

/* ---- finding the shim ---------------------------------------------------- */

static int usable(const char *p)
{
	return access(p, R_OK) == 0;
}

/* Next to the leapclock binary (the build tree), then the install libdir. */
static int find_preload(char *buf, size_t size)
{
	static const char *const rel[] = {
		"/" PRELOAD_NAME,
		"/../lib/x86_64-linux-gnu/" PRELOAD_NAME,
		"/../lib/aarch64-linux-gnu/" PRELOAD_NAME,
		"/../lib64/" PRELOAD_NAME,
		"/../lib/" PRELOAD_NAME,
	};
	char exe[PATH_MAX];
	const char *env = getenv("LEAPCLOCK_PRELOAD");
	ssize_t n;
	char *slash;

	if (env != NULL && *env != '\0') {
		if ((size_t)snprintf(buf, size, "%s", env) < size &&
		    usable(buf))
			return 0;
		return -1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]);
			     i++) {
				if ((size_t)snprintf(buf, size, "%s%s", exe,
				                     rel[i]) < size &&
				    usable(buf))
					return 0;
			}
		}
	}
#ifdef LC_PRELOAD_INSTALL_PATH
	if ((size_t)snprintf(buf, size, "%s", LC_PRELOAD_INSTALL_PATH) < size &&
	    usable(buf))
		return 0;
#endif
	return -1;
}

/* ---- the command --------------------------------------------------------- */

struct run_opts {
	const char *mode, *pretend, *leap_in, *leapfile, *timeline;
	int del, debug, help, sandbox;
	char leapabs[PATH_MAX]; /* --leapfile made absolute */
	/* --leap-in resolved by run_table: LEAPCLOCK_EXTRA_LEAP's value and
	 * the pretend instant (empty without --leap-in) */
	char extra[64], leap_pretend[64];
};

/* The options, up to the program; 0 or the exit status. */
static int run_parse(struct run_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "pretend", required_argument, NULL, 'p' },
		{ "leap-in", required_argument, NULL, 'l' },
		{ "delete", no_argument, NULL, 'd' },
		{ "leapfile", required_argument, NULL, 'f' },
		{ "file", required_argument, NULL, 'f' }, /* as table's */
		{ "timeline", required_argument, NULL, 't' },
		{ "debug", no_argument, NULL, 'D' },
		{ "sandbox", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->mode = "exact";
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->mode = optarg;
			break;
		case 'p':
			o->pretend = optarg;
			break;
		case 'l':
			o->leap_in = optarg;
			break;
		case 'd':
			o->del = 1;
			break;
		case 'f':
			o->leapfile = optarg;
			break;
		case 't':
			o->timeline = optarg;
			break;
		case 'D':
			o->debug = 1;
			break;
		case 'S':
			o->sandbox = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case ':':
			return lc_cli_usage_error(CMD, "option '%s' needs a "
			                          "value", argv[optind - 1]);
		default:
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return lc_cli_usage_error(CMD, "no program to run (leapclock "
		                          "run [OPTIONS] -- PROGRAM [ARGS])");
	return 0;
}

/* The options' values and what excludes what; 0 or the exit status. */
static int run_check(struct run_opts *o)
{
	struct lc_smear_policy pol;
	struct lc_error err;
	char preset[64];
	int64_t ns;
	int rc = lcp_parse_mode(o->mode, preset, sizeof(preset));

	if (rc < 0)
		return lc_cli_usage_error(CMD, "--mode '%s': expected exact or "
		                          "smear:PRESET", o->mode);
	if (rc == 1 &&
	    lc_smear_preset_from("--mode smear:PRESET", preset, 0, &pol, &err) <
	        0) {
		lc_cli_print_error(CMD, &err);
		return LC_EXIT_USAGE;
	}
	if (o->pretend != NULL && o->leap_in != NULL)
		return lc_cli_usage_error(CMD, "--pretend and --leap-in "
		                          "exclude each other (--leap-in "
		                          "chooses the pretend instant)");
	if (o->sandbox && (rc == 1 || o->leap_in != NULL ||
	                   o->timeline != NULL))
		return lc_cli_usage_error(CMD, "--sandbox goes with --mode "
		                          "exact, and excludes --leap-in and "
		                          "--timeline (the program arms its "
		                          "own leaps with adjtimex, on its own "
		                          "timeline; --pretend TIME starts it)");
	if (o->del && o->leap_in == NULL)
		return lc_cli_usage_error(CMD, "--delete goes with --leap-in");
	if (o->timeline != NULL && (o->pretend != NULL || o->leap_in != NULL))
		return lc_cli_usage_error(CMD, "--timeline and --pretend or "
		                          "--leap-in exclude each other (a "
		                          "rehearsal timeline is leapclockd "
		                          "--timeline PATH --pretend TIME)");
	if (o->leap_in != NULL &&
	    (lcp_parse_duration(o->leap_in, &ns) < 0 || ns <= 0 ||
	     ns > LCP_LEAP_IN_MAX_NS))
		return lc_cli_usage_error(CMD, "--leap-in '%s': expected a "
		                          "duration up to 7 days such as 10s, "
		                          "1500ms or 2m", o->leap_in);
	if (o->leapfile != NULL) {
		if (realpath(o->leapfile, o->leapabs) == NULL)
			return lc_cli_usage_error(CMD, "--leapfile '%s': %s",
			                          o->leapfile, strerror(errno));
		o->leapfile = o->leapabs;
	}
	return 0;
}

/* --leap-in on table `t`: the leap added to it as each shim will add it
 * (lcp_leap_in_resolve, lc_leaptable_add), so that a leap the table
 * cannot take is said here, and o->extra, o->leap_pretend for the
 * program's LEAPCLOCK_EXTRA_LEAP and LEAPCLOCK_PRETEND. 0 or the exit
 * status. */
static int run_leap_in(struct run_opts *o, lc_leaptable *t)
{
	struct lc_error err;
	struct timespec now, p;
	int64_t in_ns = 0, when, pns;
	int dir = o->del ? -1 : 1;

	lcp_parse_duration(o->leap_in, &in_ns); /* checked in run_check */
	clock_gettime(CLOCK_REALTIME, &now);
	if (lcp_leap_in_resolve(t, (int64_t)now.tv_sec * LC_NSEC_PER_SEC +
	                               now.tv_nsec,
	                        in_ns, dir, &when, &pns, &err) < 0) {
		lc_cli_print_error(CMD, &err);
		return LC_EXIT_USAGE;
	}
	p.tv_sec = (time_t)(pns / LC_NSEC_PER_SEC);
	p.tv_nsec = (long)(pns % LC_NSEC_PER_SEC);
	if (lc_iso8601_format(&p, 9, o->leap_pretend,
	                      sizeof(o->leap_pretend)) < 0) {
		fprintf(stderr, "leapclock run: --leap-in: cannot format the "
		                "pretend instant\n");
		return LC_EXIT_USAGE;
	}
	snprintf(o->extra, sizeof(o->extra), "%" PRId64 ":%+d", when, dir);
	return 0;
}

/* The table the program's shims will use, checked once here: a table
 * named by LEAPCLOCK_LEAPFILE is that table or an error (here as in the
 * shim, said once before the program starts), --pretend must be an
 * instant the shim's int64_t ns hold, --leap-in's leap must fit it, and an
 * expired table is said once (*expired: the shims are told it was). The
 * table is handed to *keep (the sandbox's: loaded again, a system table's
 * search would be said a second time; --leap-in, which the sandbox
 * excludes, has added its leap to it). 0 or the exit status. */
static int run_table(struct run_opts *o, int *expired, lc_leaptable **keep)
{
	const char *env = getenv(LCP_ENV_LEAPFILE);
	struct lc_error err;
	struct timespec ts;
	lc_leaptable *t;
	int rc;

	t = lc_cli_load_table(CMD, o->leapfile != NULL ? o->leapfile
	                           : env != NULL && *env != '\0' ? env
	                                                         : NULL);
	if (t == NULL)
		return LC_EXIT_USAGE;
	if (o->pretend != NULL &&
	    lc_iso8601_parse_range(o->pretend, t, LC_RANGE_FIRST_SEC,
	                           LC_RANGE_END_SEC, &ts, &err) < 0) {
		lc_cli_print_error(CMD, &err);
		lc_leaptable_free(t);
		return LC_EXIT_USAGE;
	}
	/* An expired table does not know the leaps announced since: judged
	 * at the instant the program starts on (the pretended one in a
	 * rehearsal), before --leap-in's leap is added to it. */
	if (o->pretend == NULL)
		clock_gettime(CLOCK_REALTIME, &ts);
	*expired = lc_cli_warn_expired(CMD, t, NULL, (int64_t)ts.tv_sec);
	rc = o->leap_in != NULL ? run_leap_in(o, t) : 0;
	if (rc != 0) {
		lc_leaptable_free(t);
		return rc;
	}
	*keep = t;
	return 0;
}

/* The program's environment: the shim preloaded, and its configuration,
 * fresh (nothing inherited from an enclosing run). */
static void run_env(const struct run_opts *o, const char *lib, int expired)
{
	char preload[2 * PATH_MAX + 2], buf[32];
	const char *old;
	struct timespec ts;

	unsetenv(LCP_ENV_PRETEND);
	unsetenv(LCP_ENV_ANCHOR);
	unsetenv(LCP_ENV_LEAP_IN);
	unsetenv(LCP_ENV_LEAP_DIR);
	unsetenv(LCP_ENV_EXTRA_LEAP);
	unsetenv(LCP_ENV_TABLE_WARNED);
	unsetenv(LCP_ENV_SANDBOX);
	if (expired)
		setenv(LCP_ENV_TABLE_WARNED, "1", 1);
	old = getenv("LD_PRELOAD");
	if (old != NULL && *old != '\0')
		snprintf(preload, sizeof(preload), "%s:%s", lib, old);
	else
		snprintf(preload, sizeof(preload), "%s", lib);
	setenv("LD_PRELOAD", preload, 1);
	setenv(LCP_ENV_MODE, o->mode, 1);
	if (o->timeline != NULL)
		setenv("LEAPCLOCK_TIMELINE", o->timeline, 1);
	if (o->leapfile != NULL)
		setenv(LCP_ENV_LEAPFILE, o->leapfile, 1);
	if (o->debug)
		setenv(LCP_ENV_DEBUG, "1", 1);
	if (o->pretend != NULL && !o->sandbox)
		setenv(LCP_ENV_PRETEND, o->pretend, 1);
	if (o->extra[0] != '\0') {
		/* --leap-in, resolved (run_leap_in): the shims add the leap */
		setenv(LCP_ENV_PRETEND, o->leap_pretend, 1);
		setenv(LCP_ENV_EXTRA_LEAP, o->extra, 1);
	}
	if (!o->sandbox && (o->pretend != NULL || o->leap_in != NULL)) {
		/* The program's clock reads the pretend instant at this
		 * host CLOCK_MONOTONIC instant (and so does every child). */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(buf, sizeof(buf), "%" PRId64,
		         (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
		setenv(LCP_ENV_ANCHOR, buf, 1);
	}
}

/* A page named with --timeline must be one the shim will read: a typo,
 * another boot's page, a page whose writer is gone or one on neither the
 * host's CLOCK_MONOTONIC nor its CLOCK_MONOTONIC_RAW would run the program on real time instead of
 * the rehearsal it asked for. Said with the path and why; -1. */
static int check_timeline(const char *path)
{
	struct lc__tl_map m;
	struct lc_error err;
	char msg[400];

	memset(&err, 0, sizeof(err));
	if (lc__tl_map_open(&m, path, 1, &err) == 0) {
		int sys = m.pg->counter_kind == LC_COUNTER_SYSTEM &&
		          m.pg->counter_freq == 1000000000u &&
		          (m.pg->counter_clk == CLOCK_MONOTONIC ||
		           m.pg->counter_clk == CLOCK_MONOTONIC_RAW);

		lc__tl_map_close(&m);
		if (sys)
			return 0;
		fprintf(stderr, "leapclock run: --timeline %s: its counter is "
		                "neither the host's CLOCK_MONOTONIC nor its "
		                "CLOCK_MONOTONIC_RAW (leapclockd --counter "
		                "best)\n", path);
		return -1;
	}
	lc_error_format(&err, msg, sizeof(msg));
	fprintf(stderr, "leapclock run: --timeline %s: cannot read it: %s\n",
	        path, msg);
	return -1;
}


/* ---- the sandbox (--sandbox; preload/sandbox.h has the design) ----------- */

/* CAP_SYS_TIME out of every set of ours and of the bounding set, so that
 * nothing of the program (nor we) can set the host's clock; without the
 * privilege to shrink the bounding set (no CAP_SETPCAP: an ordinary user,
 * who has no CAP_SYS_TIME), no_new_privs keeps a set-id or file-capability
 * program from gaining it. -1 if CAP_SYS_TIME is still effective. */
static int drop_sys_time(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const unsigned bit = 1u << CAP_SYS_TIME;

	if (prctl(PR_CAPBSET_READ, CAP_SYS_TIME, 0, 0, 0) == 1 &&
	    prctl(PR_CAPBSET_DROP, CAP_SYS_TIME, 0, 0, 0) != 0 &&
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_TIME, 0, 0);
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	if ((d[0].effective | d[0].permitted | d[0].inheritable) & bit) {
		d[0].effective &= ~bit;
		d[0].permitted &= ~bit;
		d[0].inheritable &= ~bit;
		if (syscall(SYS_capset, &h, d) != 0)
			return -1;
	}
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0 || (d[0].effective & bit))
		return -1;
	return 0;
}

struct sandbox {
	lc_timekeeper *tk;
	lc_leaptable *table;
	lc_counter *counter;
	struct lc__tl_writer *w;
	char dir[PATH_MAX], page[PATH_MAX], sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd, debug;
	unsigned long sets, adjs;
};

static volatile sig_atomic_t sb_child_pid;

static void sb_forward(int sig)
{
	if (sb_child_pid > 0)
		kill((pid_t)sb_child_pid, sig);
}

/* A library error as the errno Linux gives (its own codes are errnos). */
static int sb_errno(int rc)
{
	return rc < -4000 ? -EINVAL : rc;
}

/* A set of the sandbox's CLOCK_REALTIME: 0 or -errno. */
static int sb_settime(void *ctx, int64_t sec, int64_t nsec)
{
	struct sandbox *sb = ctx;
	struct timespec ts;
	int rc;

	sb->sets++;
	if (nsec < 0 || nsec >= 1000000000) {
		rc = -EINVAL;
	} else {
		ts.tv_sec = (time_t)sec;
		ts.tv_nsec = (long)nsec;
		rc = sb_errno(lc_settime(sb->tk, LC_CLOCK_REALTIME, &ts));
	}
	if (sb->debug)
		fprintf(stderr, "leapclock run: sandbox: settime %" PRId64
		        ".%09" PRId64 " -> %d\n", sec, nsec, rc);
	lc__tl_writer_tick(sb->w, "", NULL);
	return rc;
}

/* adjtimex on the sandbox's clock: the clock state or -errno. */
static int sb_adjtimex_lc(struct sandbox *sb, struct lc_timex *tx)
{
	unsigned int modes = tx->modes;
	int rc;

	if (modes != 0)
		sb->adjs++;
	rc = sb_errno(lc_adjtimex(sb->tk, tx));
	if (sb->debug && modes != 0)
		fprintf(stderr, "leapclock run: sandbox: adjtimex "
		        "modes 0x%x status 0x%x -> %d\n", modes,
		        tx->status, rc);
	lc__tl_writer_tick(sb->w, "", NULL);
	return rc;
}

/* the same for a raw syscall's struct timex (sbfilter.c) */
static int sb_adjtimex(void *ctx, struct timex *tx)
{
	struct lc_timex l;
	int rc;

	lcp_sb_to_lc(&l, tx);
	rc = sb_adjtimex_lc(ctx, &l);
	if (rc >= 0)
		lcp_sb_from_lc(tx, &l);
	return rc;
}

static void sb_serve(struct sandbox *sb, int fd)
{
	struct lcp_sb_req rq;
	struct lcp_sb_rep rp;
	struct timeval tmo = { 1, 0 };
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof(tmo));
	n = recv(fd, &rq, sizeof(rq), 0);
	if (n != (ssize_t)sizeof(rq) || rq.magic != LCP_SB_MAGIC)
		return;
	memset(&rp, 0, sizeof(rp));
	rp.magic = LCP_SB_MAGIC;
	if (rq.op == LCP_SB_SETTIME) {
		rp.rc = sb_settime(sb, rq.sec, rq.nsec);
	} else if (rq.op == LCP_SB_ADJTIMEX) {
		rp.tx = rq.tx;
		rp.rc = sb_adjtimex_lc(sb, &rp.tx);
	} else {
		rp.rc = -EINVAL;
	}
	send(fd, &rp, sizeof(rp), MSG_NOSIGNAL);
}

static void sb_close(struct sandbox *sb)
{
	if (sb->lfd >= 0)
		close(sb->lfd);
	if (sb->w != NULL)
		lc__tl_writer_close(sb->w);
	if (sb->sock[0])
		unlink(sb->sock);
	if (sb->page[0])
		unlink(sb->page);
	if (sb->dir[0])
		rmdir(sb->dir);
	lc_tk_free(sb->tk);
	lc_counter_free(sb->counter);
	lc_leaptable_free(sb->table);
}

/* The sandbox's timeline (on `table`, run_table's, which it owns from
 * here), page and socket. 0 or the exit status. */
static int sb_open(struct sandbox *sb, const struct run_opts *o,
                   lc_leaptable *table)
{
	const char *tmp = getenv("TMPDIR");
	struct lc_tk_config cfg;
	struct lc_error err;
	struct sockaddr_un sa;
	struct timespec ts;

	sb->table = table;
	if (lc_counter_new_system(&sb->counter, CLOCK_MONOTONIC) != 0)
		return LC_EXIT_RUNTIME;
	lc_tk_config_init(&cfg);
	cfg.table = sb->table;
	cfg.leap_source = LC_LEAP_FROM_ADJTIMEX; /* as Linux: STA_INS/DEL */
	cfg.follow_host = 0;
	if (lc_tk_new(&sb->tk, sb->counter, &cfg) != 0)
		return LC_EXIT_RUNTIME;
	memset(&err, 0, sizeof(err));
	if (o->pretend != NULL) {
		if (lc_iso8601_parse_range(o->pretend, sb->table,
		                           LC_RANGE_FIRST_SEC, LC_RANGE_END_SEC,
		                           &ts, &err) < 0) {
			lc_cli_print_error(CMD, &err);
			return LC_EXIT_USAGE;
		}
		if (lc_settime(sb->tk, LC_CLOCK_REALTIME, &ts) != 0) {
			fprintf(stderr, "leapclock run: --pretend %s: not a "
			        "time the sandbox's clock can start at\n",
			        o->pretend);
			return LC_EXIT_USAGE;
		}
	}
	lc_update(sb->tk);
	if (tmp == NULL || *tmp != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(sb->dir, sizeof(sb->dir),
	                     "%s/leapclock-sandbox.XXXXXX", tmp) >=
	        sizeof(sb->dir) ||
	    mkdtemp(sb->dir) == NULL) {
		fprintf(stderr, "leapclock run: --sandbox: cannot make a "
		        "folder in %s: %s\n", tmp, strerror(errno));
		sb->dir[0] = '\0';
		return LC_EXIT_RUNTIME;
	}
	if ((size_t)snprintf(sb->page, sizeof(sb->page), "%s/timeline",
	                     sb->dir) >= sizeof(sb->page) ||
	    (size_t)snprintf(sb->sock, sizeof(sb->sock), "%s/adjtimex",
	                     sb->dir) >= sizeof(sb->sock)) {
		fprintf(stderr, "leapclock run: --sandbox: the folder %s is "
		        "too long for a socket's path (set TMPDIR)\n", sb->dir);
		sb->sock[0] = '\0';
		return LC_EXIT_RUNTIME;
	}
	if (lc__tl_writer_open(&sb->w, sb->page, sb->tk, LC__TLF_PRETEND, "",
	                       &err) != 0) {
		char msg[400];

		lc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "leapclock run: --sandbox: %s\n", msg);
		sb->w = NULL;
		return LC_EXIT_RUNTIME;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sb->sock, strlen(sb->sock));
	sb->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
	                 0);
	if (sb->lfd < 0 || bind(sb->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(sb->lfd, 64) != 0) {
		fprintf(stderr, "leapclock run: --sandbox: socket %s: %s\n",
		        sb->sock, strerror(errno));
		return LC_EXIT_RUNTIME;
	}
	return 0;
}

static int64_t sb_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs the program on the sandbox's clock, serves its set calls and ticks
 * the timeline until the program and every process it left behind (we are
 * their subreaper) have exited. Returns the program's exit status. */
static int run_sandbox(const struct run_opts *o, char **argv,
                       lc_leaptable *table)
{
	struct sandbox sb;
	struct lc_sbf_ops ops;
	struct sigaction sa;
	int64_t next = 0;
	int status = 0, have = 0, rc, sv[2], nfd;
	pid_t pid;

	memset(&sb, 0, sizeof(sb));
	sb.lfd = -1;
	sb.debug = o->debug;
	if (drop_sys_time() < 0) {
		fprintf(stderr, "leapclock run: --sandbox: cannot drop "
		        "CAP_SYS_TIME: %s\n", strerror(errno));
		lc_leaptable_free(table);
		return LC_EXIT_RUNTIME;
	}
	rc = sb_open(&sb, o, table);
	if (rc != 0) {
		sb_close(&sb);
		return rc;
	}
	setenv("LEAPCLOCK_TIMELINE", sb.page, 1);
	setenv(LCP_ENV_SANDBOX, sb.sock, 1);
	{
		char boot[32];

		snprintf(boot, sizeof(boot), "%" PRId64,
		         lcp_sb_boot_sample(clock_gettime));
		setenv(LCP_ENV_SB_BOOT, boot, 1);
	}
	if (o->debug)
		fprintf(stderr, "leapclock run: sandbox: page %s, socket %s\n",
		        sb.page, sb.sock);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		fprintf(stderr, "leapclock run: socketpair: %s\n",
		        strerror(errno));
		sb_close(&sb);
		return LC_EXIT_RUNTIME;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "leapclock run: fork: %s\n", strerror(errno));
		sb_close(&sb);
		return LC_EXIT_RUNTIME;
	}
	if (pid == 0) {
		int fd;

		close(sb.lfd);
		close(sv[0]);
		/* raw set calls of every process of the program: ours
		 * (sbfilter.h) */
		fd = lc_sbf_install();
		lc_sbf_send(sv[1], fd);
		if (fd >= 0)
			close(fd);
		close(sv[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "leapclock run: cannot run %s: %s\n", argv[0],
		        strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(sv[1]);
	nfd = lc_sbf_recv(sv[0]);
	close(sv[0]);
	if (nfd < 0 && o->debug)
		fprintf(stderr, "leapclock run: sandbox: no seccomp filter "
		        "(%s): a raw syscall that sets the clock meets the "
		        "kernel, EPERM\n", strerror(-nfd));
	sb_child_pid = pid;
	ops.ctx = &sb;
	ops.settime = sb_settime;
	ops.adjtimex = sb_adjtimex;
	ops.debug = o->debug;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sb_forward;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN; /* the terminal sends them to the program */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	for (;;) {
		struct pollfd pfd[2] = { { sb.lfd, POLLIN, 0 },
		                         { nfd, POLLIN, 0 } };
		int64_t now;
		pid_t p;
		int st;

		if (poll(pfd, nfd >= 0 ? 2 : 1, 20) > 0) {
			int fd;

			/* served at once: no exec while it is open */
			while ((fd = accept(sb.lfd, NULL, NULL)) >= 0) {
				sb_serve(&sb, fd);
				close(fd);
			}
			if (nfd >= 0 && (pfd[1].revents & POLLIN) &&
			    lc_sbf_serve(nfd, &ops) < 0) {
				close(nfd);
				nfd = -1;
			} else if (nfd >= 0 && (pfd[1].revents & ~POLLIN)) {
				/* POLLHUP: no process of the program left */
				close(nfd);
				nfd = -1;
			}
		}
		now = sb_mono_ns();
		if (now >= next) {
			lc_update(sb.tk);
			lc__tl_writer_tick(sb.w, "", NULL);
			next = now + 50000000; /* 20 ticks a second */
		}
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p == pid) {
				status = st;
				have = 1;
				sb_child_pid = 0;
			}
		}
		if (p < 0 && errno == ECHILD)
			break;
	}
	if (o->debug)
		fprintf(stderr, "leapclock run: sandbox: %lu settime and %lu "
		        "adjtimex calls that set\n", sb.sets, sb.adjs);
	if (nfd >= 0)
		close(nfd);
	sb_close(&sb);
	if (!have)
		return LC_EXIT_RUNTIME;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int lc_cmd_run(int argc, char **argv)
{
	struct run_opts o;
	lc_leaptable *table = NULL;
	char lib[PATH_MAX];
	int rc, expired = 0;

	memset(&o, 0, sizeof(o));
	rc = run_parse(&o, argc, argv);
	if (rc == 0 && o.help) {
		lc_cmd_run_usage(stdout);
		return 0;
	}
	if (rc == 0)
		rc = run_check(&o);
	if (rc == 0)
		rc = run_table(&o, &expired, &table);
	if (rc == 0 && o.timeline != NULL && strcmp(o.timeline, "none") != 0 &&
	    check_timeline(o.timeline) < 0)
		rc = 2;
	if (rc == 0)
		rc = check_program(argv[optind], 0);
	if (rc == 0 && find_preload(lib, sizeof(lib)) < 0) {
		fprintf(stderr, "leapclock run: cannot find %s next to the "
		        "leapclock binary or in the library directory (set "
		        "LEAPCLOCK_PRELOAD to its path)\n", PRELOAD_NAME);
		rc = LC_EXIT_RUNTIME;
	}
	if (rc != 0) {
		lc_leaptable_free(table);
		return rc;
	}
	run_env(&o, lib, expired);
	if (o.sandbox)
		return run_sandbox(&o, argv + optind, table);
	lc_leaptable_free(table); /* the shim loads its own */
	fflush(NULL);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "leapclock run: cannot run %s: %s\n", argv[optind],
	        strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/*
 * sim.h - the reproducer: a deterministic discrete-event simulator of how
 * kernels handled a leap second, and of leapclock's own timekeeper on the
 * same scenario (DESIGN.md section 1; docs/simulator.md). Internal: used by
 * `leapclock simulate`, `leapclock kernel-test` and tests/test_sim.c, which
 * link the static library lc_sim (libleapclock and the preload shim do not
 * contain the simulator).
 *
 * One run simulates one machine for one model and one setting (HZ, NOHZ) on
 * one scenario, and fills a struct lc__sim_result with the summary.
 *
 * Time inside a run is "true" time: int64_t ns since the start of the run,
 * which is the time an ideal observer (and the simulated counter) measures.
 * Each model says what each clock id reads at each true instant; the summary
 * compares those readings with what the clock is meant to read (the truth:
 * true elapsed time, true TAI, true UTC, POSIX time that repeats 23:59:59, or
 * the smeared time of the model's own smear policy).
 */
#ifndef LC_SIM_H
#define LC_SIM_H

#include "internal.h"

#include <stdio.h>

enum lc__sim_model {
	LC__SIM_LEGACY = 0,     /* Linux before 4.2 */
	LC__SIM_LINUX42 = 1,    /* Linux 4.2 and later */
	LC__SIM_FORCE_TICK = 2, /* the 2015 workaround on a legacy kernel */
	LC__SIM_SLEW_ALL = 3,   /* NTP-server smearing through the frequency */
	LC__SIM_EXACT = 4,      /* leapclock's timekeeper */
	LC__SIM_SMEAR = 5,      /* leapclock, REALTIME on a smear preset */
	LC__SIM_NMODELS = 6
};

enum lc__sim_scenario {
	LC__SIM_REPRODUCER = 0, /* 2015: one busy reader, one timer at 00:00 */
	LC__SIM_TIMERS = 1,     /* random timers on every clock, many readers */
	LC__SIM_DELETE = 2      /* the same as TIMERS for a leap deletion */
};

enum lc__sim_reader_mode {
	LC__SIM_READER_BUSY = 0, /* reader 0 spins from the start */
	LC__SIM_READER_IDLE = 1  /* reader 0 sleeps on the timer, then spins */
};

/* Reader 0's trace: what it read around the leap, told as it happens to
 * whoever runs the simulation (the CLI's tools/leapclock/simtrace.c
 * prints it as `leapclock simulate --trace` shows it). */
struct lc__sim_tracer {
	/* Before the first reading: the model's name, the leap's direction
	 * (+1 insertion), the tick rate and NOHZ. */
	void (*begin)(void *arg, const char *model, int dir, int hz, int nohz);
	/* Reader 0's call number j read CLOCK_REALTIME `rt` (POSIX ns): the
	 * calls near the leap, the leap's application and the timer; j
	 * numbers are consecutive for consecutive calls. */
	void (*read)(void *arg, int64_t j, int64_t rt);
	/* The reproducer's REALTIME timer for 00:00:00 fired at true UTC
	 * `fired`, due at true UTC `due` (keys sec * 2e9 + nsec, nsec in
	 * [1e9, 2e9) during 23:59:60), `early_ns` before it was due (< 0:
	 * late). */
	void (*timer)(void *arg, int64_t fired, int64_t due, int64_t early_ns);
	/* After the last reading. */
	void (*end)(void *arg);
	void *arg;
};

struct lc__sim_config {
	int model;       /* enum lc__sim_model */
	char preset[32]; /* smear preset for LC__SIM_SMEAR */
	int scenario;    /* enum lc__sim_scenario */
	/* POSIX seconds of the 00:00:00 UTC that follows the leap (for an
	 * insertion, the midnight after 23:59:60; for a deletion, the
	 * midnight that 23:59:58 jumps to). Must be a multiple of 86400. */
	int64_t leap_midnight;
	int hz;               /* 100, 250, 1000 (any 1..10000 is accepted) */
	int nohz;             /* 1: the tick stops while the CPU is idle */
	int64_t nohz_max_ns;  /* longest tickless idle period */
	int64_t read_cost_ns; /* cost of one clock_gettime of reader 0 */
	int64_t timer_latency_ns; /* kernel: interrupt to timer callback */
	uint64_t seed;   /* tick phase, accumulation phase, the scenario */
	int ntimers;     /* TIMERS/DELETE: timers per clock id */
	int nreaders;    /* TIMERS/DELETE: readers (reader 0 is busy) */
	int reader_mode; /* enum lc__sim_reader_mode */
	/* non-NULL: reader 0's trace is told to it */
	const struct lc__sim_tracer *trace;
};

struct lc__sim_result {
	int available; /* 0: the model could not run (see note) */
	char note[160];
	char model[48]; /* "legacy", "smear:google", ... */
	int scenario;
	int hz, nohz, dir; /* dir: +1 insertion, -1 deletion */
	int64_t timers;    /* timers armed */
	int64_t fired;     /* timers that fired */
	int64_t
	    early_fires; /* fired before their own clock reached the deadline */
	int64_t max_early_ns; /* largest earliness (0 if none) */
	int64_t max_late_ns;  /* largest lateness */
	/* Longest time (true ns, i.e. MONOTONIC) during which one reader kept
	 * reading a REALTIME at least 0.5 s off what it should read (the time
	 * past midnight before the leap was applied, or the deleted second). */
	int64_t stale_read_ns;
	int64_t stale_reads; /* readings in such windows (sampled) */
	/* Backward steps seen by a reader, per clock id; -1: the model has no
	 * such clock. UTC is compared in its 23:59:60 order. */
	int64_t backsteps[LC_CLOCK_COUNT];
	/* Largest |REALTIME - what it should read| (ns), and readings whose
	 * UTC (sec, nsec with 23:59:60) was not the true UTC; -1: no UTC. */
	int64_t max_realtime_error_ns;
	int64_t utc_wrong_reads;
	int tai_continuous; /* TAI never jumped (> 1 ms against true time) */
	int64_t max_tai_error_ns;  /* largest |TAI - true TAI| */
	double max_smear_rate_ppm; /* largest |rate - 1| of the smeared clock */
	/* Kernel models: when the leap was applied, after its true instant. */
	int64_t leap_applied_after_ns; /* -1: not applicable */
	int64_t reads;                 /* readings evaluated */
	int64_t events;                /* events processed */
};

/* Fills *cfg with the reproducer's defaults: legacy, 2015-06-30 insertion,
 * HZ=1000, periodic tick, 100 ns per read, 5 us interrupt latency, seed 1,
 * 32 timers per clock and 4 readers for the TIMERS scenarios. */
void lc__sim_config_init(struct lc__sim_config *cfg);

/* Model names: "legacy", "linux-4.2", "force-tick", "slew-all", "exact",
 * "smear:PRESET". Fills cfg->model (and cfg->preset). LC_EINVAL if unknown
 * (the smear preset is checked when the run starts). */
int lc__sim_model_parse(const char *name, struct lc__sim_config *cfg);
/* The name of cfg's model into buf (e.g. "smear:google"). */
void lc__sim_model_name(const struct lc__sim_config *cfg, char *buf,
                        size_t size);
const char *lc__sim_scenario_name(int scenario);
int lc__sim_scenario_parse(const char *name, int *scenario);

/* Runs one simulation. Returns 0 and fills *res; a model that cannot run in
 * this build (the timekeeper missing) returns 0 with res->available = 0 and
 * a note. LC_EINVAL (with *err) on a bad configuration. Deterministic: the
 * same configuration gives the same result and trace. */
int lc__sim_run(const struct lc__sim_config *cfg, struct lc__sim_result *res,
                struct lc_error *err);

/* The summary lines (row, columns, JSON) are the CLI's:
 * tools/leapclock/simprint.h. */

/* ---- between sim.c and sim_exact.c ---------------------------------- */

struct lc__sim;

/* The interface a model implements for the engine in sim.c. */
struct lc__sim_ops {
	/* Before the scenario is built (may be NULL): the exact models create
	 * the timekeeper here and say where its MONOTONIC starts. */
	int (*setup)(struct lc__sim *s, struct lc_error *err);
	/* Before the run: may compute the model's timeline (kernel models run
	 * their discrete-event pass here) and create state. */
	int (*prepare)(struct lc__sim *s, struct lc_error *err);
	/* An update of the timekeeper ("tick") at true instant t. */
	void (*update)(struct lc__sim *s, int64_t t);
	/* Brings timers up to true instant t (firing those due before t). */
	void (*advance)(struct lc__sim *s, int64_t t);
	/* Arms timer i at true instant t. */
	void (*arm)(struct lc__sim *s, int i, int64_t t);
	/* Every clock at true instant t (UTC as a key: sec*2e9 + nsec). */
	void (*read)(struct lc__sim *s, int64_t t, int64_t v[LC_CLOCK_COUNT]);
	void (*finish)(struct lc__sim *s);
};

/* sim_exact.c: the exact and smear models on leapclock's timekeeper. */
extern const struct lc__sim_ops lc__sim_exact_ops;

/* Used by sim_exact.c. */
int64_t lc__sim_true_start_posix(const struct lc__sim *s);
int lc__sim_dir(const struct lc__sim *s);
int64_t lc__sim_leap_posix(const struct lc__sim *s);
const struct lc__sim_config *lc__sim_cfg(const struct lc__sim *s);
const struct lc_smear_policy *lc__sim_policy(const struct lc__sim *s);
void **lc__sim_model_state(struct lc__sim *s);
/* MONOTONIC (and MONOTONIC_RAW, BOOTTIME) at true 0. */
void lc__sim_set_mono0(struct lc__sim *s, int64_t mono0);
int lc__sim_ntimers(const struct lc__sim *s);
/* Timer i: clock id, absolute flag, deadline (ns on its clock; for UTC the
 * key sec * 2e9 + nsec, nsec in [1e9, 2e9) for 23:59:60), or the relative
 * value in ns. */
void lc__sim_timer_info(const struct lc__sim *s, int i, int *clock,
                        int *absolute, int64_t *value);
/* Timer i fired at true instant t. */
void lc__sim_timer_fired(struct lc__sim *s, int i, int64_t t);
/* Marks the run as not available, with the reason. */
void lc__sim_unavailable(struct lc__sim *s, const char *note);

#endif /* LC_SIM_H */

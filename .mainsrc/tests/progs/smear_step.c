/*
 * smear_step - an ordinary program (it knows nothing of leapclock) for
 * tests/preload_step.sh: run under the shim in smear mode on a page whose
 * timeline steps (step_writer), inside a leap's smear window. It prints
 * "armed" (step_writer then steps the page) and reads CLOCK_TAI and
 * CLOCK_REALTIME back to back for SECONDS. TAI is exact and follows the
 * step; the smeared REALTIME must follow it too, at once: TAI - REALTIME
 * moves only at the smear's rate (parts per million), never by the step.
 * Before the shim made its smear plan again after a step, REALTIME kept
 * the old timeline while TAI stepped: TAI - REALTIME jumped by the step.
 *
 *	smear_step SECONDS
 *
 * Prints the largest change of TAI - REALTIME between two consecutive
 * readings and the TAI steps seen; exits 1 if that change passed 2 ms (the
 * smear is a function of the instant: a 1000 s smear moves it by 0.3 ms
 * for a 300 ms step) or no step was seen.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int64_t end, pd = 0, pm = 0, ptai = 0, worst = 0, d, m, tai, rt;
	int steps = 0, have = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	puts("armed");
	end = now(CLOCK_MONOTONIC) + (int64_t)(secs * 1e9);
	while ((m = now(CLOCK_MONOTONIC)) < end) {
		int64_t tai2;

		/* REALTIME between two TAI reads; a step (or a preemption)
		 * in between leaves the pair out */
		tai = now(CLOCK_TAI);
		rt = now(CLOCK_REALTIME);
		tai2 = now(CLOCK_TAI);
		if (tai2 < tai || tai2 - tai > 1000000)
			continue;
		tai += (tai2 - tai) / 2;
		d = tai - rt;
		if (have) {
			int64_t dd = llabs(d - pd);

			if (dd > worst)
				worst = dd;
			/* TAI moved 100 ms off MONOTONIC: the page stepped */
			if (llabs((tai - ptai) - (m - pm)) > 100000000)
				steps++;
		}
		have = 1;
		pd = d;
		pm = m;
		ptai = tai;
	}
	printf("%s smear_step: TAI steps seen %d, largest change of TAI - "
	       "REALTIME between readings %.6f ms\n",
	       steps > 0 && worst <= 2000000 ? "ok" : "FAIL", steps,
	       (double)worst / 1e6);
	return steps > 0 && worst <= 2000000 ? 0 : 1;
}

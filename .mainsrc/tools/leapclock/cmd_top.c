/* cmd_top.c - `leapclock top`: `leapclock status --watch`, by the name
 * top(1) and chronyc users look for. */
#include "cli.h"

#include <stdlib.h>

const char lc_cmd_top_summary[] =
	"live view: status --watch (timeline, next leap, served rates)";

void lc_cmd_top_usage(FILE *out)
{
	fprintf(out, "usage: leapclock top [--interval S] [--count N] "
	             "[--stats-file PATH|none]\n\n"
	             "The same as 'leapclock status --watch'; see "
	             "'leapclock status --help'.\n");
}

int lc_cmd_top(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 2, sizeof(*av));
	int rc;

	if (av == NULL) {
		fprintf(stderr, "leapclock top: out of memory\n");
		return LC_EXIT_RUNTIME;
	}
	av[0] = (char *)"status";
	av[1] = (char *)"--watch";
	for (int i = 1; i < argc; i++)
		av[i + 1] = argv[i];
	rc = lc_cmd_status(argc + 1, av);
	free(av);
	return rc;
}

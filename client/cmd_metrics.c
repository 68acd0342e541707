/*
 * gpuperf metrics: offline checks of metric definitions.
 */
#include <stdio.h>

#include "client/commands.h"

int gpuperf_cmd_metrics(int argc, char **argv)
{
	fprintf(stderr, "gpuperf metrics: not built yet\n");
	return GPUPERF_EXIT_FAILURE;
}

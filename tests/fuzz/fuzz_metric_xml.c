/*
 * Fuzzes the metric XML loader from memory: arbitrary bytes parsed and
 * compiled as a metric file and, for every set that survives, bound to a
 * typical Tiger Lake GT2 and evaluated over an accumulator filled from the
 * input, so the compiled programs run too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metric_binding.h"
#include "metrics/metric_xml.h"
#include "metrics/platform.h"
#include "tests/fuzz/fuzz_target.h"


static void evaluate_sets(const struct gpm_metrics_file *file,
			  const uint8_t *data, size_t size)
{
	static struct gpm_device_vars vars;
	static int vars_ready;
	struct gpm_accumulator acc;

	if (!vars_ready) {
		struct gpm_device_info dev;
		gpm_platform_default_device(gpm_platform_by_name("tglgt2"),
					    &dev);
		gpm_device_vars_init(&vars, &dev);
		vars_ready = 1;
	}
	memset(&acc, 0, sizeof(acc));
	memcpy(acc.slot, data, size < sizeof(acc.slot) ? size : sizeof(acc.slot));

	for (size_t s = 0; s < file->n_sets; s++) {
		const struct gpm_metric_set *set = &file->sets[s];
		struct gpm_binding b;
		size_t n = set->n_counters ? set->n_counters : 1;
		struct gpm_value *values = calloc(n, sizeof(*values));
		struct gpm_value *max = calloc(n, sizeof(*max));

		if (values && max && !gpm_binding_init(&b, set, &vars)) {
			gpm_binding_evaluate(&b, &acc, values);
			gpm_binding_evaluate_max(&b, &acc, values, max);
			gpm_binding_fini(&b);
		}
		free(values);
		free(max);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;

	gpm_diagnostics_init(&diag);
	if (!gpm_metrics_file_parse("fuzz/oa-fuzz.xml", data, size, &diag,
				    &file)) {
		evaluate_sets(file, data, size);
		gpm_metrics_file_free(file);
	}
	gpm_diagnostics_fini(&diag);
	return 0;
}

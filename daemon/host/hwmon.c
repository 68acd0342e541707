/*
 * A device's hwmon attributes (see hwmon.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/host/hwmon.h"
#include "daemon/host/sysfs_file.h"

int gpd_hwmon_find(const char *device_dir, char *out, size_t size)
{
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/hwmon", device_dir);
	DIR *d = opendir(dir);
	if (!d)
		return -ENOENT;
	int ret = -ENOENT;
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, "hwmon", 5))
			continue;
		snprintf(out, size, "%s/%s", dir, e->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

int gpd_hwmon_energy_uj(const char *hwmon_dir, uint64_t *uj)
{
	return gpd_sysfs_read_u64(uj, "%s/energy1_input", hwmon_dir);
}

int gpd_hwmon_temperature(const char *hwmon_dir, double *celsius)
{
	char text[32];
	for (int i = 1; i <= 9; i++) {
		if (gpd_sysfs_read(text, sizeof(text), "%s/temp%d_input",
				   hwmon_dir, i))
			continue;
		*celsius = strtod(text, NULL) / 1000;
		return 0;
	}
	return -ENOENT;
}

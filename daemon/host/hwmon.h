/*
 * A device's hwmon (Documentation/hwmon/sysfs-interface.rst): energy in
 * microjoules, temperatures in millidegrees Celsius, under
 * DEVICE/hwmon/hwmonN/. i915 and xe give discrete cards one
 * (Documentation/ABI/testing/sysfs-driver-intel-i915-hwmon, -xe-hwmon).
 */
#ifndef GPD_HOST_HWMON_H
#define GPD_HOST_HWMON_H

#include <stddef.h>
#include <stdint.h>

/* The first hwmonN directory of device_dir into out. -ENOENT. */
int gpd_hwmon_find(const char *device_dir, char *out, size_t size);

/* energy1_input: energy since some point, a 64-bit counter in uJ. */
int gpd_hwmon_energy_uj(const char *hwmon_dir, uint64_t *uj);

/* The first of temp1_input .. temp9_input there is, in degrees C. */
int gpd_hwmon_temperature(const char *hwmon_dir, double *celsius);

#endif

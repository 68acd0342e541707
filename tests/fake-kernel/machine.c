/*
 * The fake machine: its cards, built from the environment, and the tree
 * of /dev/dri, /sys and /proc/sys/dev under its root that libdrm and the
 * daemon read (fake_kernel.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "daemon/sim/oa_model.h"
#include "tests/fake-kernel/fake_kernel.h"

struct fake_kernel fk;

static void mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* mkdir -p of a path built from fmt. */
static void mkdirs(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

/* Writes text into dir/name unless the file exists: a test may have
 * written it first, and a second process on the same machine must find
 * what the first left. */
static void put(const char *dir, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, text, (size_t)n) != n)
		fprintf(stderr, "fake kernel: cannot write %s\n", path);
	close(fd);
}

static void link_to(const char *target, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void link_to(const char *target, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (symlink(target, path) && errno != EEXIST)
		fprintf(stderr, "fake kernel: cannot link %s: %s\n", path,
			strerror(errno));
}

/* The boot-time sets: registered once, when the metrics directory is
 * made. */
static void register_boot_sets(struct fk_card *card)
{
	const char *list = getenv("GPD_FAKE_KERNEL_SETS");
	char copy[1024];
	snprintf(copy, sizeof(copy), "%s", list ? list : "");
	for (char *save, *sym = strtok_r(copy, ",", &save); sym;
	     sym = strtok_r(NULL, ",", &save)) {
		const struct gpm_metric_set *set =
			gpm_metrics_db_find_set(&fk.db, card->platform->name, sym);
		uint64_t id;
		if (!set || fk_config_add(card, set->hw_config_guid, &id))
			fprintf(stderr, "fake kernel: card%u cannot have set %s\n",
				card->index, sym);
	}
}

/*
 * The card's state every process shares. Hardware context IDs are the
 * engine's, not a DRM file's or a process's: __execlists_schedule_in()
 * (gt/intel_execlists_submission.c, Linux 6.12) takes each running
 * context's CCID from the engine's context_tag pool, whoever created the
 * context. So contexts that two processes create run as two workload
 * contexts, counted on the machine, not in each process.
 */
static void map_card_shared(struct fk_card *card)
{
	char path[FK_ROOT_MAX + 64];
	snprintf(path, sizeof(path), "%s/kernel", fk.root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/card%u", fk.root, card->index);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	void *p = MAP_FAILED;
	/* Growing to the same size keeps what another process wrote. */
	if (fd >= 0 && !ftruncate(fd, sizeof(*card->shared)))
		p = mmap(NULL, sizeof(*card->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "fake kernel: cannot share %s (%s): its contexts "
			"are this process's alone\n", path, strerror(errno));
		p = mmap(NULL, sizeof(*card->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	}
	card->shared = p == MAP_FAILED ? NULL : p;
}

/* PCI function 0000:00:0X.0 for card N, like an integrated GPU at 02.0. */
static void build_card(struct fk_card *card)
{
	const char *root = fk.root;
	const struct gpm_device_info *info = &card->info;
	char pci[FK_ROOT_MAX + 64];
	snprintf(pci, sizeof(pci), "%s/sys/devices/pci0000:00/0000:00:%02x.0",
		 root, 2 + card->index);
	snprintf(card->dir, sizeof(card->dir), "%s/drm/card%u", pci, card->index);
	snprintf(card->node, sizeof(card->node), "%s/dev/dri/card%u", root,
		 card->index);
	bool fresh = access(card->dir, F_OK) != 0;

	mkdirs("%s", card->dir);
	mkdirs("%s/sys/bus/pci", root);
	mkdirs("%s/sys/dev/char", root);
	mkdirs("%s/dev/dri", root);
	put(pci, "vendor", "0x8086\n");
	put(pci, "device", "0x%04x\n", info->pci_id);
	put(pci, "revision", "0x%02x\n", info->revision);
	put(pci, "subsystem_vendor", "0x8086\n");
	put(pci, "subsystem_device", "0x0000\n");
	put(pci, "uevent", "DRIVER=%s\nPCI_CLASS=30000\nPCI_ID=8086:%04X\n"
	    "PCI_SUBSYS_ID=8086:0000\nPCI_SLOT_NAME=0000:00:%02x.0\n",
	    card->driver == FK_I915 ? "i915" : "xe", info->pci_id,
	    2 + card->index);
	link_to("../../../bus/pci", "%s/subsystem", pci);
	link_to("../..", "%s/device", card->dir);
	put(card->dir, "dev", "%d:%u\n", FK_DRM_MAJOR, card->index);
	put(card->dir, "uevent", "MAJOR=%d\nMINOR=%u\nDEVNAME=dri/card%u\n"
	    "DEVTYPE=drm_minor\n", FK_DRM_MAJOR, card->index, card->index);
	char target[PATH_MAX];
	snprintf(target, sizeof(target),
		 "../../devices/pci0000:00/0000:00:%02x.0/drm/card%u",
		 2 + card->index, card->index);
	link_to(target, "%s/sys/dev/char/%d:%u", root, FK_DRM_MAJOR, card->index);
	if (card->driver == FK_I915) {
		put(card->dir, "gt_min_freq_mhz", "%llu\n",
		    (unsigned long long)(info->gpu_min_freq / 1000000));
		put(card->dir, "gt_max_freq_mhz", "%llu\n",
		    (unsigned long long)(info->gpu_max_freq / 1000000));
	} else {
		char freq[FK_ROOT_MAX + 128];
		snprintf(freq, sizeof(freq), "%s/tile0/gt0/freq0", pci);
		mkdirs("%s", freq);
		put(freq, "min_freq", "%llu\n",
		    (unsigned long long)(info->gpu_min_freq / 1000000));
		put(freq, "max_freq", "%llu\n",
		    (unsigned long long)(info->gpu_max_freq / 1000000));
	}
	put(root, card->node + strlen(root) + 1, "%s", "");
	struct stat st;
	if (!stat(card->node, &st)) {
		card->node_dev = st.st_dev;
		card->node_ino = st.st_ino;
	}
	mkdirs("%s/metrics", card->dir);
	if (fresh)
		register_boot_sets(card);
	map_card_shared(card);
}

static void build_sysctls(void)
{
	char dir[FK_ROOT_MAX + 64];
	snprintf(dir, sizeof(dir), "%s/proc/sys/dev/i915", fk.root);
	mkdirs("%s", dir);
	put(dir, "perf_stream_paranoid", "1\n");
	put(dir, "oa_max_sample_rate", "100000\n");
	snprintf(dir, sizeof(dir), "%s/proc/sys/dev/xe", fk.root);
	mkdirs("%s", dir);
	put(dir, "observation_paranoid", "1\n");
	snprintf(dir, sizeof(dir), "%s/proc/sys/kernel", fk.root);
	mkdirs("%s", dir);
	put(dir, "perf_event_paranoid", "2\n");
}

static int parse_cards(const char *spec)
{
	char copy[256];
	snprintf(copy, sizeof(copy), "%s", spec && *spec ? spec : "i915:tglgt2");
	fk.n_cards = 0;
	for (char *save, *item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		if (!colon || fk.n_cards == FK_MAX_CARDS)
			return -EINVAL;
		*colon = '\0';
		struct fk_card *card = &fk.cards[fk.n_cards];
		memset(card, 0, sizeof(*card));
		card->index = fk.n_cards;
		if (!strcmp(item, "i915"))
			card->driver = FK_I915;
		else if (!strcmp(item, "xe"))
			card->driver = FK_XE;
		else
			return -EINVAL;
		/* PLATFORM@0xID: a part of the platform that presents another
		 * PCI device id (a newer stepping or SKU), answered as its
		 * chip id (i915_getparam_ioctl(), xe query_config()). */
		char *at = strchr(colon + 1, '@');
		unsigned long pci_id = 0;
		if (at) {
			char *end;
			*at = '\0';
			pci_id = strtoul(at + 1, &end, 16);
			if (*end || !pci_id || pci_id > 0xffff)
				return -EINVAL;
		}
		card->platform = gpm_platform_by_name(colon + 1);
		if (!card->platform)
			return -EINVAL;
		gpm_platform_default_device(card->platform, &card->info);
		if (pci_id)
			card->info.pci_id = (uint32_t)pci_id;
		fk.n_cards++;
	}
	return 0;
}

static void reset(void)
{
	for (int fd = 0; fd < FK_MAX_FDS; fd++) {
		if (fk.fds[fd].kind == FK_FD_STREAM)
			fk_stream_close(fk.fds[fd].stream);
		else if (fk.fds[fd].kind == FK_FD_PMU)
			fk_pmu_close(fk.fds[fd].pmu);
		else if (fk.fds[fd].kind == FK_FD_CARD)
			fk_file_close(fk.fds[fd].file);
	}
	memset(fk.fds, 0, sizeof(fk.fds));
	for (unsigned i = 0; i < fk.n_cards; i++)
		if (fk.cards[i].shared)
			munmap(fk.cards[i].shared, sizeof(*fk.cards[i].shared));
	fk.n_cards = 0;
	gpm_metrics_db_fini(&fk.db);
	fk.log_path[0] = '\0';
	fk.root[0] = '\0';
}

static void build(const char *root)
{
	reset();
	snprintf(fk.root, sizeof(fk.root), "%s", root);
	gpm_metrics_db_init(&fk.db);
	const char *metrics = getenv("GPD_FAKE_KERNEL_METRICS");
	if (metrics && *metrics && gpm_metrics_db_add_dir(&fk.db, metrics) <= 0)
		fprintf(stderr, "fake kernel: no metric files in %s\n", metrics);
	const char *seed = getenv("GPD_FAKE_KERNEL_SEED");
	fk.seed = seed ? strtoull(seed, NULL, 0) : 1;
	const char *rev = getenv("GPD_FAKE_KERNEL_PERF_REVISION");
	fk.perf_revision = rev ? atoi(rev) : 7;
	const char *log = getenv("GPD_FAKE_KERNEL_LOG");
	char cwd[PATH_MAX];
	/* Named from the root, so that a later chdir() keeps it. */
	if (log && *log == '/')
		snprintf(fk.log_path, sizeof(fk.log_path), "%s", log);
	else if (log && *log && getcwd(cwd, sizeof(cwd)) &&
		 snprintf(fk.log_path, sizeof(fk.log_path), "%s/%s", cwd,
			  log) >= (int)sizeof(fk.log_path))
		fk.log_path[0] = '\0';
	const char *control = getenv("GPD_FAKE_KERNEL_CONTROL");
	snprintf(fk.control_path, sizeof(fk.control_path), "%s",
		 control ? control : "");
	memset(&fk.control, 0, sizeof(fk.control));
	fk.control.capable = true;
	fk.control.eio_after = -1;
	if (parse_cards(getenv("GPD_FAKE_KERNEL_CARDS"))) {
		fprintf(stderr, "fake kernel: GPD_FAKE_KERNEL_CARDS takes "
			"i915:PLATFORM or xe:PLATFORM, each with an optional "
			"@0xPCIID, comma-separated\n");
		fk.n_cards = 0;
	}
	build_sysctls();
	for (unsigned i = 0; i < fk.n_cards; i++) {
		fk_units_init(&fk.cards[i]);
		build_card(&fk.cards[i]);
	}
	fk_pmu_build();
}

bool fk_active(void)
{
	if (fk.initializing)
		return false;
	const char *root = getenv("GPD_FAKE_KERNEL_ROOT");
	if (!root || !*root) {
		if (fk.root[0])
			reset();
		return false;
	}
	if (strlen(root) >= sizeof(fk.root)) {
		if (fk.root[0])
			reset();
		fprintf(stderr, "fake kernel: GPD_FAKE_KERNEL_ROOT is longer "
			"than %zu bytes\n", sizeof(fk.root) - 1);
		return false;
	}
	if (strcmp(root, fk.root)) {
		/* Building the machine opens files and directories through the
		 * intercepted calls, which must then pass straight through. */
		fk.initializing = true;
		build(root);
		fk.initializing = false;
	}
	return true;
}

static bool has_prefix(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

const char *fk_redirect(const char *path, char *buf, size_t size)
{
	if (!path || !fk_active())
		return path;
	if (has_prefix(path, "/dev/dri") || has_prefix(path, "/sys") ||
	    has_prefix(path, "/proc/sys/dev/i915") ||
	    has_prefix(path, "/proc/sys/dev/xe")) {
		snprintf(buf, size, "%s%s", fk.root, path);
		return buf;
	}
	return path;
}

struct fk_card *fk_card_of_node(const struct stat *st)
{
	for (unsigned i = 0; i < fk.n_cards; i++)
		if (fk.cards[i].node_ino == st->st_ino &&
		    fk.cards[i].node_dev == st->st_dev)
			return &fk.cards[i];
	return NULL;
}

void fk_card_stat(const struct fk_card *card, struct stat *st)
{
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = makedev(FK_DRM_MAJOR, card->index);
}

uint64_t fk_sysctl(const char *name, uint64_t fallback)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/proc/sys/%s", fk.root, name);
	FILE *f = fopen(path, "re");
	unsigned long long v;
	if (!f)
		return fallback;
	if (fscanf(f, "%llu", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

const struct gpm_metric_set *fk_find_set(const struct fk_card *card,
					 const char *guid)
{
	return gpm_metrics_db_find_set(&fk.db, card->platform->name, guid);
}

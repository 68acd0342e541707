/*
 * Reading `name = value` lines against a getopt_long table.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config_file.h"
#include "daemon/error.h"

/* s without the blanks around it, in place. */
static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static const struct option *find_option(const struct option *table,
					const char *name)
{
	for (const struct option *o = table; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int add_line(struct gpd_config_file *file, const struct option *option,
		    const char *value, unsigned lineno)
{
	struct gpd_config_line *lines =
		realloc(file->lines, (file->n_lines + 1) * sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	file->lines = lines;
	char *copy = NULL;
	if (value && !(copy = strdup(value)))
		return -ENOMEM;
	lines[file->n_lines++] = (struct gpd_config_line){
		.option = option,
		.value = copy,
		.line = lineno,
	};
	return 0;
}

static int parse_line(struct gpd_config_file *file, char *text,
		      unsigned lineno, const struct option *table,
		      struct gpd_error *err)
{
	char *line = trim(text);
	if (!*line || *line == '#')
		return 0;
	char *eq = strchr(line, '=');
	char *value = NULL;
	if (eq) {
		*eq = '\0';
		value = trim(eq + 1);
	}
	char *name = trim(line);
	const char *path = file->path;
	if (name[0] == '-')
		return gpd_fail(err, -EINVAL, "%s:%u: write the option without its "
			    "dashes: `%s%s`", path, lineno,
			    name + strspn(name, "-"), value ? " = VALUE" : "");
	const struct option *option = find_option(table, name);
	if (!option)
		return gpd_fail(err, -EINVAL, "%s:%u: '%s' is not an option of "
			    "gpuperfd; see 'gpuperfd --help'", path, lineno,
			    *name ? name : "=");
	if (option->has_arg == required_argument && (!value || !*value))
		return gpd_fail(err, -EINVAL, "%s:%u: '%s' needs a value: `%s = "
			    "VALUE`", path, lineno, name, name);
	if (option->has_arg == no_argument && value)
		return gpd_fail(err, -EINVAL, "%s:%u: '%s' takes no value; write "
			    "`%s` alone", path, lineno, name, name);
	if (add_line(file, option, value, lineno))
		return gpd_fail(err, -ENOMEM, "out of memory");
	return 0;
}

int gpd_config_file_read(struct gpd_config_file *file, const char *path,
			 const struct option *table, struct gpd_error *err)
{
	memset(file, 0, sizeof(*file));
	file->path = strdup(path);
	if (!file->path)
		return gpd_fail(err, -ENOMEM, "out of memory");
	FILE *f = fopen(path, "re");
	if (!f) {
		int code = -errno;
		gpd_config_file_fini(file);
		return gpd_fail(err, code, "--config %s: %s", path, strerror(-code));
	}
	char *text = NULL;
	size_t size = 0;
	unsigned lineno = 0;
	int ret = 0;
	while (!ret && getline(&text, &size, f) >= 0)
		ret = parse_line(file, text, ++lineno, table, err);
	if (!ret && ferror(f))
		ret = gpd_fail(err, -EIO, "--config %s: read error", path);
	free(text);
	fclose(f);
	if (ret)
		gpd_config_file_fini(file);
	return ret;
}

void gpd_config_file_fini(struct gpd_config_file *file)
{
	for (size_t i = 0; i < file->n_lines; i++)
		free(file->lines[i].value);
	free(file->lines);
	free(file->path);
	memset(file, 0, sizeof(*file));
}

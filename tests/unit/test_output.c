/*
 * CLI rows: CSV, NDJSON and the table, their number formats and human
 * units, and write failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/output.h"
#include "tests/unit/test_util.h"

/* Columns of every kind; counters shown as the UI shows them. */
static struct gpuperf_column columns[] = {
	{ .key = "platform", .kind = GPUPERF_COLUMN_TEXT, .machine_only = true },
	{ .key = "timestamp_ns", .kind = GPUPERF_COLUMN_TIME,
	  .table_key = "time_s" },
	{ .key = "duration_ns", .kind = GPUPERF_COLUMN_DURATION,
	  .table_key = "duration" },
	{ .key = "context_id", .kind = GPUPERF_COLUMN_CONTEXT,
	  .table_key = "context" },
	{ .key = "GpuTime", .kind = GPUPERF_COLUMN_COUNTER, .units = "ns" },
	{ .key = "GpuBusy", .kind = GPUPERF_COLUMN_COUNTER, .units = "percent" },
	{ .key = "Freq", .kind = GPUPERF_COLUMN_COUNTER, .units = "hz" },
	{ .key = "Bytes", .kind = GPUPERF_COLUMN_COUNTER, .units = "bytes" },
	{ .key = "Pixels", .kind = GPUPERF_COLUMN_COUNTER, .units = "pixels" },
	{ .key = "Odd,\"key\"", .kind = GPUPERF_COLUMN_NUMBER },
};
#define N_COLUMNS (sizeof(columns) / sizeof(columns[0]))

static void setup(void)
{
	gpuperf_display_for(&columns[4].display, "ns", GPC_COUNTER_RAW, "duration");
	gpuperf_display_for(&columns[5].display, "percent", GPC_COUNTER_RAW, "duration");
	gpuperf_display_for(&columns[6].display, "hz", GPC_COUNTER_EVENT, "event");
	gpuperf_display_for(&columns[7].display, "bytes", GPC_COUNTER_THROUGHPUT,
			    "throughput");
	gpuperf_display_for(&columns[8].display, "pixels", GPC_COUNTER_EVENT, "event");
}

static const struct gpuperf_cell row1[N_COLUMNS] = {
	{ .type = GPUPERF_CELL_TEXT, .text = "tglgt2" },
	{ .type = GPUPERF_CELL_U64, .u = 1500000000 },
	{ .type = GPUPERF_CELL_U64, .u = 2500000 },
	{ .type = GPUPERF_CELL_U64, .u = 0x2a },
	{ .type = GPUPERF_CELL_U64, .u = 2500000 },
	{ .type = GPUPERF_CELL_DOUBLE, .d = 12.25 },
	{ .type = GPUPERF_CELL_U64, .u = 1150000000 },
	{ .type = GPUPERF_CELL_U64, .u = 3 << 20 },
	{ .type = GPUPERF_CELL_U64, .u = 123456 },
	{ .type = GPUPERF_CELL_DOUBLE, .d = 0.1 },
};

static const struct gpuperf_cell row2[N_COLUMNS] = {
	{ .type = GPUPERF_CELL_TEXT, .text = "a,b" },
	{ .type = GPUPERF_CELL_NONE },
	{ .type = GPUPERF_CELL_U64, .u = 1000000000 },
	{ .type = GPUPERF_CELL_TEXT, .text = "idle" },
	{ .type = GPUPERF_CELL_U64, .u = 0 },
	{ .type = GPUPERF_CELL_DOUBLE, .d = NAN },
	{ .type = GPUPERF_CELL_DOUBLE, .d = 1.0 / 3 },
	{ .type = GPUPERF_CELL_U64, .u = 10 },
	{ .type = GPUPERF_CELL_U64, .u = 999 },
	{ .type = GPUPERF_CELL_DOUBLE, .d = 1e300 },
};

/* The two rows in format, as text. */
static char *render(enum gpuperf_format format)
{
	struct gpuperf_output o;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ck_assert_int_eq(gpuperf_output_init(&o, f, format, columns,
					     N_COLUMNS), 0);
	ck_assert_int_eq(gpuperf_output_row(&o, row1), 0);
	ck_assert_int_eq(gpuperf_output_row(&o, row2), 0);
	gpuperf_output_fini(&o);
	fclose(f);
	return text;
}

/* Plain values; a context as hex, words as words. */
START_TEST(test_csv)
{
	char *text = render(GPUPERF_FORMAT_CSV);
	ck_assert_str_eq(text,
		"platform,timestamp_ns,duration_ns,context_id,GpuTime,GpuBusy,"
		"Freq,Bytes,Pixels,\"Odd,\"\"key\"\"\"\n"
		"tglgt2,1500000000,2500000,0x2a,2500000,12.25,1150000000,"
		"3145728,123456,0.1\n"
		"\"a,b\",,1000000000,idle,0,,0.3333333333333333,10,999,1e+300\n");
	free(text);
}
END_TEST

/* A name with a line break in it stays one CSV field, quoted (RFC 4180):
 * a reader would otherwise see a row end inside the header. */
START_TEST(test_csv_line_breaks_quoted)
{
	static const struct gpuperf_column broken[] = {
		{ .key = "Two\nlines", .kind = GPUPERF_COLUMN_NUMBER },
		{ .key = "Carriage\rreturn", .kind = GPUPERF_COLUMN_NUMBER },
		{ .key = "Plain", .kind = GPUPERF_COLUMN_NUMBER },
	};
	static const struct gpuperf_cell cells[] = {
		{ .type = GPUPERF_CELL_U64, .u = 1 },
		{ .type = GPUPERF_CELL_U64, .u = 2 },
		{ .type = GPUPERF_CELL_U64, .u = 3 },
	};
	struct gpuperf_output o;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ck_assert_int_eq(gpuperf_output_init(&o, f, GPUPERF_FORMAT_CSV, broken, 3), 0);
	ck_assert_int_eq(gpuperf_output_row(&o, cells), 0);
	gpuperf_output_fini(&o);
	fclose(f);
	ck_assert_str_eq(text, "\"Two\nlines\",\"Carriage\rreturn\",Plain\n1,2,3\n");
	free(text);
}
END_TEST

START_TEST(test_ndjson)
{
	char *text = render(GPUPERF_FORMAT_NDJSON);
	ck_assert_str_eq(text,
		"{\"platform\":\"tglgt2\",\"timestamp_ns\":1500000000,"
		"\"duration_ns\":2500000,\"context_id\":\"0x2a\","
		"\"GpuTime\":2500000,\"GpuBusy\":12.25,\"Freq\":1150000000,"
		"\"Bytes\":3145728,\"Pixels\":123456,\"Odd,\\\"key\\\"\":0.1}\n"
		"{\"platform\":\"a,b\",\"timestamp_ns\":null,"
		"\"duration_ns\":1000000000,\"context_id\":\"idle\","
		"\"GpuTime\":0,\"GpuBusy\":null,\"Freq\":0.3333333333333333,"
		"\"Bytes\":10,\"Pixels\":999,\"Odd,\\\"key\\\"\":1e+300}\n");
	free(text);
}
END_TEST

/* The table is for people: seconds, durations in words, counts of a
 * window as rates per second of it, SI prefixes; the columns a title
 * says are left out. */
START_TEST(test_table)
{
	char *text = render(GPUPERF_FORMAT_TABLE);
	char *header = strtok(text, "\n");
	char *first = strtok(NULL, "\n");
	char *second = strtok(NULL, "\n");

	ck_assert_ptr_nonnull(second);
	ck_assert_uint_eq(strlen(first), strlen(header));
	ck_assert_str_eq(header,
		"    time_s    duration     context     GpuTime     GpuBusy"
		"         Freq         Bytes             Pixels   Odd,\"key\"");
	ck_assert_str_eq(first,
		"     1.500      2.5 ms        0x2a      2.5 ms      12.2 %"
		"     1.15 GHz     1.26 GB/s    49.4 M pixels/s         0.1");
	/* no value, not a number: a dash */
	ck_assert_str_eq(second,
		"         -         1 s        idle         0 s           -"
		"      333 mHz        10 B/s       999 pixels/s      1e+300");
	free(text);
}
END_TEST

/*
 * Table columns line up by terminal cells: a µ prefix or a unit of
 * two-byte characters takes one cell a character, in rows of many
 * columns (longer than any buffer's first size); a cell wider than its
 * column pushes the rest right rather than losing characters, and a
 * text cell is cut at GPUPERF_HUMAN_TEXT_MAX - 1 bytes.
 */
START_TEST(test_table_lines_up_by_cells)
{
	enum { N = 40 };
	static const char long_text[] =
		"a context name far longer than any column of the table";
	struct gpuperf_column cols[N + 1];
	struct gpuperf_cell rows[3][N + 1];
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct gpuperf_output o;

	memset(cols, 0, sizeof(cols));
	cols[0] = (struct gpuperf_column){ .key = "duration_ns",
					   .kind = GPUPERF_COLUMN_DURATION };
	for (int i = 1; i <= N; i++) {
		cols[i].key = i % 2 ? "T" : "Temperature";
		cols[i].kind = GPUPERF_COLUMN_COUNTER;
		gpuperf_display_for(&cols[i].display, i % 2 ? "s" : "°C",
				    GPC_COUNTER_RAW, "duration");
	}
	for (int r = 0; r < 3; r++) {
		rows[r][0] = (struct gpuperf_cell){ .type = GPUPERF_CELL_U64,
						    .u = 1000 };
		for (int i = 1; i <= N; i++)
			rows[r][i] = (struct gpuperf_cell){
				.type = GPUPERF_CELL_DOUBLE,
				.d = i % 2 ? (r + 1) * 1.25e-6 * i :
					 (r + 1) * -1.5 * i };
	}
	/* far wider than their columns */
	rows[2][6] = (struct gpuperf_cell){ .type = GPUPERF_CELL_TEXT,
					    .text = long_text };
	rows[2][7] = (struct gpuperf_cell){ .type = GPUPERF_CELL_DOUBLE,
					    .d = 1e300 };
	ck_assert_int_eq(gpuperf_output_init(&o, f, GPUPERF_FORMAT_TABLE, cols,
					     N + 1), 0);
	for (int r = 0; r < 3; r++)
		ck_assert_int_eq(gpuperf_output_row(&o, rows[r]), 0);
	gpuperf_output_fini(&o);
	fclose(f);

	char *header = strtok(text, "\n");
	char *first = strtok(NULL, "\n");
	char *second = strtok(NULL, "\n");
	char *third = strtok(NULL, "\n");
	ck_assert_ptr_nonnull(third);
	ck_assert_ptr_null(strtok(NULL, "\n"));
	ck_assert_int_eq(gpuperf_text_width(first), gpuperf_text_width(header));
	ck_assert_int_eq(gpuperf_text_width(second), gpuperf_text_width(header));
	ck_assert_str_eq(strstr(header, "           T  Temperature  "), header + 11);
	ck_assert(!strncmp(first, "       1 µs     1.25 µs        -3 °C     "
			   "3.75 µs        -6 °C     6.25 µs", 66));
	ck_assert_ptr_nonnull(strstr(third, "     18.8 µs  a context name far "
				     "longer than any column of th  "
				     "10000000000000000076304735395750356605147783355"
				     "       -36 °C     33.8 µs"));
	ck_assert_int_gt(gpuperf_text_width(third), gpuperf_text_width(header));
	free(text);
}
END_TEST

START_TEST(test_format_names)
{
	enum gpuperf_format f;
	ck_assert_int_eq(gpuperf_format_parse("csv", &f), 0);
	ck_assert_int_eq(f, GPUPERF_FORMAT_CSV);
	ck_assert_int_eq(gpuperf_format_parse("ndjson", &f), 0);
	ck_assert_int_eq(f, GPUPERF_FORMAT_NDJSON);
	ck_assert_int_eq(gpuperf_format_parse("table", &f), 0);
	ck_assert_int_eq(f, GPUPERF_FORMAT_TABLE);
	ck_assert_int_eq(gpuperf_format_parse("json", &f), -EINVAL);
}
END_TEST

/* Rows go out one write() each, so a reader sees whole lines only. */
START_TEST(test_rows_reach_the_fd_whole)
{
	struct gpuperf_output o;
	int fds[2];
	char buf[4096];

	ck_assert_int_eq(pipe(fds), 0);
	FILE *f = fdopen(fds[1], "w");
	ck_assert_int_eq(gpuperf_output_init(&o, f, GPUPERF_FORMAT_NDJSON,
					     columns, N_COLUMNS), 0);
	ck_assert_int_eq(gpuperf_output_row(&o, row1), 0);
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_ptr_eq(strchr(buf, '\n'), buf + n - 1);

	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(gpuperf_output_row(&o, row2), -EPIPE);
	ck_assert_int_eq(gpuperf_output_row(&o, row1), -EPIPE);
	gpuperf_output_fini(&o);
	fclose(f);
}
END_TEST

/* Batched, rows wait until enough are pending, then go out in one
 * write() that ends after a whole row; the flush writes the rest. */
START_TEST(test_batched_rows_reach_the_fd_whole)
{
	struct gpuperf_output o;
	int fds[2];
	char buf[8192];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
	FILE *f = fdopen(fds[1], "w");
	ck_assert_int_eq(gpuperf_output_init(&o, f, GPUPERF_FORMAT_CSV,
					     columns, N_COLUMNS), 0);
	gpuperf_output_set_batch(&o, 1000);
	size_t rows = 0;
	ssize_t n;
	while ((n = read(fds[0], buf, sizeof(buf) - 1)) < 0) {
		ck_assert_int_eq(errno, EAGAIN);
		ck_assert_uint_lt(rows, 100);
		ck_assert_int_eq(gpuperf_output_row(&o, rows % 2 ? row2 : row1), 0);
		rows++;
	}
	/* Enough for the batch, and no more rows than it took. */
	ck_assert_int_ge(n, 1000);
	ck_assert_int_lt(n, 1000 + 200);
	buf[n] = '\0';
	ck_assert_int_eq(buf[n - 1], '\n');
	size_t lines = 0;
	for (char *nl = buf; (nl = strchr(nl, '\n')); nl++)
		lines++;
	ck_assert_uint_eq(lines, rows + 1);     /* and the header */

	ck_assert_int_eq(gpuperf_output_row(&o, row1), 0);
	ck_assert_int_eq(read(fds[0], buf, sizeof(buf)), -1);
	ck_assert_int_eq(gpuperf_output_flush(&o), 0);
	n = read(fds[0], buf, sizeof(buf) - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_ptr_eq(strchr(buf, '\n'), buf + n - 1);
	ck_assert_int_eq(gpuperf_output_flush(&o), 0);
	gpuperf_output_fini(&o);
	fclose(f);
	close(fds[0]);
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_csv_line_breaks_quoted);
	tcase_add_test(tc, test_ndjson);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_table_lines_up_by_cells);
	tcase_add_test(tc, test_format_names);
	tcase_add_test(tc, test_rows_reach_the_fd_whole);
	tcase_add_test(tc, test_batched_rows_reach_the_fd_whole);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(output_suite)

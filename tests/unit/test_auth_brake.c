/*
 * The brake on guessing tokens: a few wrong ones from an address, then
 * one a second; other addresses untouched; a table that many addresses
 * cannot grow.
 */
#include <stdio.h>

#include "daemon/net/auth_brake.h"
#include "tests/unit/test_util.h"

#define SECOND 1000000000ull

START_TEST(a_few_wrong_then_one_a_second)
{
	static struct gpd_auth_brake b;
	uint64_t t = 5 * SECOND;
	for (int i = 0; i < GPD_AUTH_BRAKE_BURST; i++) {
		ck_assert(gpd_auth_brake_allows(&b, "192.0.2.1", t));
		gpd_auth_brake_failed(&b, "192.0.2.1", t);
	}
	ck_assert(!gpd_auth_brake_allows(&b, "192.0.2.1", t));
	ck_assert(!gpd_auth_brake_allows(&b, "192.0.2.1", t + SECOND / 2));
	ck_assert_uint_eq(b.failed, GPD_AUTH_BRAKE_BURST);
	ck_assert_uint_eq(b.braked, 2);
	/* Another address is heard. */
	ck_assert(gpd_auth_brake_allows(&b, "192.0.2.2", t));
	/* A second later, one more try; wrong, and it waits again. */
	t += SECOND;
	ck_assert(gpd_auth_brake_allows(&b, "192.0.2.1", t));
	gpd_auth_brake_failed(&b, "192.0.2.1", t);
	ck_assert(!gpd_auth_brake_allows(&b, "192.0.2.1", t));
}
END_TEST

START_TEST(many_addresses_do_not_grow_it)
{
	static struct gpd_auth_brake b;
	char address[48];
	uint64_t t = SECOND;
	for (int i = 0; i < GPD_AUTH_BRAKE_BURST; i++)
		gpd_auth_brake_failed(&b, "198.51.100.1", t);
	/* Addresses heard from since take the older ones' places, not the
	 * one still guessing. */
	for (unsigned i = 0; i < 4 * GPD_AUTH_BRAKE_PEERS; i++) {
		snprintf(address, sizeof(address), "10.0.%u.%u", i / 256, i % 256);
		t += 1000;
		gpd_auth_brake_failed(&b, address, t);
		ck_assert(!gpd_auth_brake_allows(&b, "198.51.100.1", t));
	}
}
END_TEST

static Suite *auth_brake_suite(void)
{
	Suite *s = suite_create("auth_brake");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_few_wrong_then_one_a_second);
	tcase_add_test(tc, many_addresses_do_not_grow_it);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(auth_brake_suite)

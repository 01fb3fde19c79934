/* check_hash.c: src/cm_hash.c is FNV-1a 64 with the published constants:
 * the reference test vectors of Fowler, Noll and Vo ("" is the offset
 * basis itself), and continuing a hash over a split buffer equals hashing
 * it whole. */
#include <stdint.h>
#include <string.h>

#include <check.h>

#include "cm_hash.h"

START_TEST(reference_vectors)
{
    static const struct {
        const char *s;
        uint64_t h;
    } v[] = {
        {"", 0xcbf29ce484222325ull},
        {"a", 0xaf63dc4c8601ec8cull},
        {"foobar", 0x85944171f73967e8ull},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        ck_assert_msg(cm_hash_fnv1a(CM_HASH_FNV_OFFSET, v[i].s,
                                    strlen(v[i].s)) == v[i].h,
                      "FNV-1a(\"%s\")", v[i].s);
    ck_assert(CM_HASH_FNV_OFFSET == 14695981039346656037ull);
    const char *s = "decentralized";
    uint64_t whole = cm_hash_fnv1a(CM_HASH_FNV_OFFSET, s, strlen(s));
    uint64_t part = cm_hash_fnv1a(cm_hash_fnv1a(CM_HASH_FNV_OFFSET, s, 5),
                                  s + 5, strlen(s) - 5);
    ck_assert(whole == part);
    ck_assert(cm_hash_fnv1a(whole, NULL, 0) == whole);
}
END_TEST

Suite *hash_suite(void)
{
    Suite *s = suite_create("hash");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, reference_vectors);
    suite_add_tcase(s, tc);
    return s;
}

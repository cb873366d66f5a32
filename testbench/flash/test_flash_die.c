/*
 * test_flash_die: NAND state and rules of one die: program only erased pages, pages in order,
 * whole-block erase, bad blocks, reads of unwritten pages, multi-plane checks before any
 * change, P/E counters, sparse payloads, timing-only mode without payloads, dies sharing one
 * block table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/flash/flash_cfg.h"
#include "models/flash/flash_die.h"

struct fixture {
    struct flash_cfg cfg;
    struct flash_die die;
    struct err err;
    unsigned char page[4][4096];
    unsigned char back[4][4096];
};

static void small_cfg(struct flash_cfg *c, bool payload)
{
    flash_cfg_default(c);
    c->geom.channels = 2;
    c->geom.chips_per_chan = 1;
    c->geom.planes_per_die = 4;
    c->geom.blocks_per_plane = 8;
    c->geom.pages_per_block = 4;
    c->sw.store_payload = payload;
}

static int setup_common(void **state, bool payload)
{
    struct fixture *f = calloc(1, sizeof(*f));

    if (!f)
        return -1;
    small_cfg(&f->cfg, payload);
    if (flash_die_init(&f->die, &f->cfg, 1, &f->err))
        return -1;
    for (int p = 0; p < 4; p++)
        for (int i = 0; i < 4096; i++)
            f->page[p][i] = (unsigned char)(p * 31 + i * 7);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_common(state, true);
}

static int setup_timing_only(void **state)
{
    return setup_common(state, false);
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    flash_die_fini(&f->die);
    free(f);
    return 0;
}

static const void *const *one(const void *p, uint32_t plane)
{
    static const void *v[FLASH_MAX_PLANES];

    memset(v, 0, sizeof(v));
    v[plane] = p;
    return v;
}

static void test_program_in_order_then_read_back(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {3};
    void *bufs[FLASH_MAX_PLANES] = {f->back[0]};

    for (uint32_t pg = 0; pg < 4; pg++)
        assert_int_equal(flash_die_program(&f->die, 1, blocks, pg, one(f->page[pg], 0), &f->err),
                         0);
    for (uint32_t pg = 0; pg < 4; pg++) {
        assert_int_equal(flash_die_read(&f->die, 1, blocks, pg, bufs, &f->err), 0);
        assert_memory_equal(f->back[0], f->page[pg], 4096);
    }
    assert_int_equal(flash_die_block(&f->die, 0, 3)->wp, 4);
    assert_int_equal(f->die.payload_pages, 4);
}

static void test_program_twice_is_an_error(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {2};

    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, NULL, &f->err), 0);
    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, NULL, &f->err), -EINVAL);
    /* die index 1 of 2 channels: channel 1. */
    assert_msg_has(f->err.msg, "ch 1 chip 0 die 0 plane 0 block 2 page 0");
    assert_msg_has(f->err.msg, "already programmed");
    assert_msg_has(f->err.msg, "erase the block first");
}

static void test_program_out_of_order_is_an_error(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {1};

    assert_int_equal(flash_die_program(&f->die, 1, blocks, 2, NULL, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "programmed in order; accepted page 0");
    assert_int_equal(flash_die_block(&f->die, 0, 1)->wp, 0);
}

static void test_erase_resets_and_counts(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {5};
    void *bufs[FLASH_MAX_PLANES] = {f->back[0]};

    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, one(f->page[0], 0), &f->err), 0);
    assert_int_equal(flash_die_erase(&f->die, 1, blocks, &f->err), 0);
    assert_int_equal(flash_die_block(&f->die, 0, 5)->pe, 1);
    assert_int_equal(flash_die_block(&f->die, 0, 5)->wp, 0);
    assert_int_equal(f->die.payload_pages, 0);
    assert_int_equal(flash_die_read(&f->die, 1, blocks, 0, bufs, &f->err), -ENODATA);
    /* Programmable again from page 0. */
    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, NULL, &f->err), 0);
    assert_int_equal(flash_die_erase(&f->die, 1, blocks, &f->err), 0);
    assert_int_equal(flash_die_block(&f->die, 0, 5)->pe, 2);
}

static void test_read_unwritten_names_address(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {0, 0, 6};

    assert_int_equal(flash_die_read(&f->die, 1u << 2, blocks, 1, NULL, &f->err), -ENODATA);
    assert_msg_has(f->err.msg, "ch 1 chip 0 die 0 plane 2 block 6 page 1");
    assert_msg_has(f->err.msg, "not written");
}

static void test_multi_plane_checks_all_before_change(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {1, 1, 1, 1};

    /* Plane 2's block already has page 0: the 4-plane program of page 0 must fail whole. */
    assert_int_equal(flash_die_program(&f->die, 1u << 2, blocks, 0, NULL, &f->err), 0);
    assert_int_equal(flash_die_program(&f->die, 0xf, blocks, 0, NULL, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "plane 2 block 1 page 0");
    assert_int_equal(flash_die_block(&f->die, 0, 1)->wp, 0);
    assert_int_equal(flash_die_block(&f->die, 1, 1)->wp, 0);
    /* Different blocks per plane are fine. */
    blocks[2] = 4;
    assert_int_equal(flash_die_program(&f->die, 0xf, blocks, 0, NULL, &f->err), 0);
    assert_int_equal(f->die.n_prog_pages, 5);
}

static void test_bad_masks_and_addresses(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {8};

    assert_int_equal(flash_die_program(&f->die, 0, blocks, 0, NULL, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "plane mask 0x0");
    assert_int_equal(flash_die_program(&f->die, 1u << 4, blocks, 0, NULL, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "accepted a non-empty subset of planes 0..3");
    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, NULL, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "block out of range; accepted 0..7");
    blocks[0] = 0;
    assert_int_equal(flash_die_program(&f->die, 1, blocks, 4, NULL, &f->err), -EINVAL);
    assert_msg_has(f->err.msg, "page out of range; accepted 0..3");
}

static void test_bad_block_and_erase_failure(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {7, 7};

    flash_die_block(&f->die, 1, 7)->fail_erase = 1;
    assert_int_equal(flash_die_erase(&f->die, 0x3, blocks, &f->err), -EIO);
    assert_msg_has(f->err.msg, "plane 1 block 7");
    assert_msg_has(f->err.msg, "now bad");
    assert_true(flash_die_block(&f->die, 1, 7)->bad);
    assert_int_equal(flash_die_block(&f->die, 0, 7)->pe, 1); /* plane 0 still erased */
    assert_int_equal(flash_die_program(&f->die, 0x2, blocks, 0, NULL, &f->err), -EIO);
    assert_msg_has(f->err.msg, "block is bad");
    assert_int_equal(flash_die_erase(&f->die, 0x2, blocks, &f->err), -EIO);
}

static void test_null_payload_reads_zero(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {0};
    void *bufs[FLASH_MAX_PLANES] = {f->back[0]};

    memset(f->back[0], 0xaa, 4096);
    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, NULL, &f->err), 0);
    assert_int_equal(flash_die_read(&f->die, 1, blocks, 0, bufs, &f->err), 0);
    for (int i = 0; i < 4096; i++)
        assert_int_equal(f->back[0][i], 0);
    assert_int_equal(f->die.payload_pages, 0);
}

static void test_timing_only_keeps_no_payload(void **state)
{
    struct fixture *f = *state;
    uint32_t blocks[FLASH_MAX_PLANES] = {0};
    void *bufs[FLASH_MAX_PLANES] = {f->back[0]};

    memset(f->back[0], 0xaa, 4096);
    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, one(f->page[0], 0), &f->err), 0);
    assert_int_equal(f->die.payload_pages, 0);
    assert_null(flash_die_block(&f->die, 0, 0)->data);
    assert_int_equal(flash_die_read(&f->die, 1, blocks, 0, bufs, &f->err), 0);
    assert_int_equal(f->back[0][0], 0xaa); /* untouched */
    /* The rules still hold without payloads. */
    assert_int_equal(flash_die_program(&f->die, 1, blocks, 0, NULL, &f->err), -EINVAL);
    assert_int_equal(flash_die_read(&f->die, 1, blocks, 1, NULL, &f->err), -ENODATA);
}

static void test_array_timing_busy_until(void **state)
{
    struct fixture *f = *state;

    /* Starts at max(ready, die busy, plane busy). */
    assert_int_equal(flash_die_array(&f->die, 10, 0x1, 100), 110);
    assert_int_equal(flash_die_array(&f->die, 50, 0x2, 100), 210);
    assert_int_equal(f->die.plane_busy[0], 110);
    assert_int_equal(f->die.plane_busy[1], 210);
    assert_int_equal(flash_die_array(&f->die, 500, 0x3, 5), 505);
    assert_int_equal(f->die.array_busy_ps, 205);
}

/* Two dies on one table, block-major across dies (flash_fms's layout): each die sees only its
 * own blocks, and fini frees each die's payloads but not the table. */
static void test_shared_table_keeps_dies_apart(void **state)
{
    struct fixture *f = *state;
    const uint32_t planes = 4, blocks = 8;
    struct flash_block *table = calloc((size_t)2 * planes * blocks, sizeof(*table));
    struct flash_die d[2];
    uint32_t blk[FLASH_MAX_PLANES] = {5, 5, 5, 5};
    void *bufs[FLASH_MAX_PLANES] = {f->back[0]};

    assert_non_null(table);
    for (uint32_t i = 0; i < 2; i++)
        flash_die_init_shared(&d[i], &f->cfg, i, table + (size_t)i * planes, 2 * planes);
    assert_int_equal(flash_die_program(&d[1], 0xf, blk, 0, one(f->page[1], 0), &f->err), 0);
    assert_int_equal(flash_die_block(&d[1], 3, 5)->wp, 1);
    assert_ptr_equal(flash_die_block(&d[1], 3, 5), &table[(5 * 2 + 1) * planes + 3]);
    for (uint32_t b = 0; b < blocks; b++)
        for (uint32_t p = 0; p < planes; p++)
            assert_int_equal(flash_die_block(&d[0], p, b)->wp, 0);
    assert_int_equal(flash_die_read(&d[0], 1, blk, 0, bufs, &f->err), -ENODATA);
    assert_int_equal(flash_die_read(&d[1], 1, blk, 0, bufs, &f->err), 0);
    assert_memory_equal(f->back[0], f->page[1], 4096);
    for (uint32_t i = 0; i < 2; i++)
        flash_die_fini(&d[i]);
    free(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_program_in_order_then_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_program_twice_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_program_out_of_order_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_erase_resets_and_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_unwritten_names_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_multi_plane_checks_all_before_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_masks_and_addresses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_block_and_erase_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_payload_reads_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timing_only_keeps_no_payload, setup_timing_only,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_array_timing_busy_until, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_table_keeps_dies_apart, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

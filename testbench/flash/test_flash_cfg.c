/*
 * test_flash_cfg: flash configuration: paper defaults, validation messages, key/value setter,
 * bus timing and the stated throughput bounds; flash_addr helpers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "models/flash/flash_addr.h"
#include "models/flash/flash_cfg.h"
#include "models/flash/flash_fms.h"

#define US FLASH_PS_PER_US
#define NS FLASH_PS_PER_NS

static void test_defaults_are_the_paper(void **state)
{
    struct flash_cfg c;
    struct err e = {{0}};

    (void)state;
    flash_cfg_default(&c);
    assert_int_equal(c.geom.channels, 64);
    assert_int_equal(c.geom.chips_per_chan, 2);
    assert_int_equal(c.geom.dies_per_chip, 1);
    assert_int_equal(c.geom.planes_per_die, 8);
    assert_int_equal(c.geom.blocks_per_plane, 683);
    assert_int_equal(c.geom.pages_per_block, 768);
    assert_int_equal(c.geom.page_bytes, 4096);
    assert_int_equal(c.tim.t_r_ps, 3 * US);
    assert_int_equal(c.tim.t_prog_ps, 100 * US);
    assert_int_equal(c.tim.t_bers_ps, 5000 * US);
    assert_int_equal(c.tim.bus_mts, 1200);
    assert_int_equal(c.tim.bus_width_bits, 8);
    assert_int_equal(c.tim.t_ctrl_wr_ps, 1180 * NS);
    assert_int_equal(c.tim.t_ctrl_rd_ps, 1930 * NS);
    assert_int_equal(flash_cfg_validate(&c, &e), 0);
    /* 128 dies x 16 GiB = 2 TiB (paper, Table 5). */
    assert_int_equal(flash_geom_dies(&c.geom), 128);
    assert_int_equal(flash_geom_bytes(&c.geom) >> 30, 8ull * 683 * 768 * 4096 * 128 >> 30);
}

static void test_xfer_time(void **state)
{
    struct flash_cfg c;

    (void)state;
    flash_cfg_default(&c);
    /* 4096 transfers at 1200 MT/s = 3413.33 ns, rounded up to a whole ps. */
    assert_int_equal(flash_cfg_xfer_ps(&c.tim, 4096), 3413334);
    c.tim.bus_width_bits = 16;
    assert_int_equal(flash_cfg_xfer_ps(&c.tim, 4096), 1706667);
}

static void test_bounds_default(void **state)
{
    struct flash_cfg c;
    struct flash_bounds w, r;

    (void)state;
    flash_cfg_default(&c);
    flash_cfg_write_bounds(&c, &w);
    flash_cfg_read_bounds(&c, &r);
    /* (derived) 128 dies x 8 planes x 4 KiB / 100 us = 41.9 GB/s. */
    assert_true(w.array_bps > 41.94e9 && w.array_bps < 41.95e9);
    /* (derived) 64 x 1.2 GB/s = 76.8 GB/s raw. */
    assert_true(w.chan_raw_bps == 76.8e9);
    /* 64 KiB / 1.18 us = 55.5 GB/s. */
    assert_true(w.ctrl_bps > 55.5e9 && w.ctrl_bps < 55.6e9);
    assert_true(w.min_bps == w.array_bps);
    /* Reads: 64 KiB / 1.93 us = 33.96 GB/s binds, below the channels: an 8-plane read holds
     * its channel for 8 x 0.1 + 3 + 8 x 3.413334 = 31.106672 us, 64 x 32 KiB / 31.106672 us =
     * 67.42 GB/s; each die reads at that rate too, 128 x 32 KiB / 31.106672 us = 134.84 GB/s. */
    assert_true(r.min_bps == r.ctrl_bps);
    assert_true(r.ctrl_bps > 33.95e9 && r.ctrl_bps < 33.96e9);
    assert_true(r.chan_bps > 67.41e9 && r.chan_bps < 67.42e9);
    assert_true(r.array_bps > 134.83e9 && r.array_bps < 134.84e9);
    /* Writes: a page's command cycles and data, 64 x 4 KiB / 3.513334 us = 74.61 GB/s. */
    assert_true(w.chan_bps > 74.61e9 && w.chan_bps < 74.62e9);
    /* Without command cycles a read's data-out alone is on the bus: 76.80 GB/s. */
    c.tim.t_cmd_ps = 0;
    flash_cfg_read_bounds(&c, &r);
    assert_true(r.chan_bps > 76.79e9 && r.chan_bps < 76.80e9);
    c.tim.t_cmd_ps = 100 * FLASH_PS_PER_NS;

    /* Cache program off: data-in and tPROG serialize per die. */
    c.sw.cache_program = false;
    flash_cfg_write_bounds(&c, &w);
    assert_true(w.array_bps < 33.0e9 && w.array_bps > 32.0e9);
}

static void test_validate_names_key_and_range(void **state)
{
    struct flash_cfg c;
    struct err e = {{0}};

    (void)state;
    flash_cfg_default(&c);
    c.geom.planes_per_die = 0;
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "planes_per_die = 0");
    assert_msg_has(e.msg, "accepted 1..16");

    flash_cfg_default(&c);
    c.geom.planes_per_die = 17;
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "planes_per_die = 17");

    flash_cfg_default(&c);
    c.geom.page_bytes = 3000;
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "page_bytes = 3000 is not a power of two");

    flash_cfg_default(&c);
    c.geom.channels = 0;
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "channels = 0");

    /* A fault on a channel or die the flash does not have would never fire: refused. */
    flash_cfg_default(&c);
    assert_int_equal(flash_fault_parse(&c.fault, "die:ch=63,die=1,at=0ms", &e), 0);
    assert_int_equal(flash_cfg_validate(&c, &e), 0);
    assert_int_equal(flash_fault_parse(&c.fault, "channel:ch=64,at=1ms", &e), 0);
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "fault channel:ch=64: the flash has channels 0..63 (channels = 64)");
    flash_cfg_default(&c);
    assert_int_equal(flash_fault_parse(&c.fault, "die:ch=0,die=2,at=0ms", &e), 0);
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "fault die:ch=0,die=2: a channel has dies 0..1 (chips_per_chan x "
                          "dies_per_chip = 2 x 1)");

    flash_cfg_default(&c);
    c.tim.t_prog_ps = 0;
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "t_prog_ns = 0.000 ns");

    flash_cfg_default(&c);
    c.tim.ctrl_cmd_bytes = 6000;
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "ctrl_cmd_bytes = 6000 is not a multiple of page_bytes = 4096");

    flash_cfg_default(&c);
    c.geom.channels = 1024;
    c.geom.chips_per_chan = 64;
    c.geom.dies_per_chip = 2;
    assert_int_equal(flash_cfg_validate(&c, &e), -EINVAL);
    assert_msg_has(e.msg, "too many");
}

static void test_fms_create_rejects_bad_geometry(void **state)
{
    struct flash_cfg c;
    struct flash_fms *f = (struct flash_fms *)&c;
    struct err e = {{0}};

    (void)state;
    flash_cfg_default(&c);
    c.geom.pages_per_block = 0;
    assert_int_equal(flash_fms_create(&c, &f, &e), -EINVAL);
    assert_null(f);
    assert_msg_has(e.msg, "pages_per_block = 0");
}

static void test_set_keys(void **state)
{
    struct flash_cfg c;
    struct err e = {{0}};

    (void)state;
    flash_cfg_default(&c);
    assert_int_equal(flash_cfg_set(&c, "t_prog_ns", "200000", &e), 0);
    assert_int_equal(c.tim.t_prog_ps, 200 * US);
    assert_int_equal(flash_cfg_set(&c, "t_ctrl_wr_ns", "1.5", &e), 0);
    assert_int_equal(c.tim.t_ctrl_wr_ps, 1500);
    assert_int_equal(flash_cfg_set(&c, "channels", "16", &e), 0);
    assert_int_equal(c.geom.channels, 16);
    assert_int_equal(flash_cfg_set(&c, "cache_program", "off", &e), 0);
    assert_false(c.sw.cache_program);
    assert_int_equal(flash_cfg_validate(&c, &e), 0);

    assert_int_equal(flash_cfg_set(&c, "chanels", "16", &e), -EINVAL);
    assert_msg_has(e.msg, "unknown key 'chanels'");
    assert_int_equal(flash_cfg_set(&c, "channels", "sixteen", &e), -EINVAL);
    assert_msg_has(e.msg, "not an unsigned integer");
    assert_int_equal(flash_cfg_set(&c, "channels", "-1", &e), -EINVAL);
    assert_int_equal(flash_cfg_set(&c, "channels", "5000", &e), -ERANGE);
    assert_msg_has(e.msg, "accepted 1..1024");
    assert_int_equal(flash_cfg_set(&c, "multi_plane", "maybe", &e), -EINVAL);
    assert_msg_has(e.msg, "on/off");
    assert_int_equal(flash_cfg_set(&c, "t_r_ns", "fast", &e), -EINVAL);
    assert_int_equal(c.geom.channels, 16); /* unchanged by the failures */
}

static void test_addr_die_index_and_check(void **state)
{
    struct flash_cfg c;
    struct flash_addr a = {0}, b;
    struct err e = {{0}};

    (void)state;
    flash_cfg_default(&c);
    /* Channels first, then chips. */
    a.channel = 5;
    a.chip = 1;
    assert_int_equal(flash_addr_die_index(&c.geom, &a), 5 + 64);
    flash_addr_from_die_index(&c.geom, 69, &b);
    assert_int_equal(b.channel, 5);
    assert_int_equal(b.chip, 1);
    assert_int_equal(b.die, 0);
    a.block = 683;
    assert_int_equal(flash_addr_check(&c.geom, &a, &e), -EINVAL);
    assert_msg_has(e.msg, "block 683 is out of range; accepted 0..682");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_are_the_paper),
        cmocka_unit_test(test_xfer_time),
        cmocka_unit_test(test_bounds_default),
        cmocka_unit_test(test_validate_names_key_and_range),
        cmocka_unit_test(test_fms_create_rejects_bad_geometry),
        cmocka_unit_test(test_set_keys),
        cmocka_unit_test(test_addr_die_index_and_check),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * sc_minimal: the smallest platform with a flash memory system in it (models/sc/README.md shows
 * it): one initiator writes two pages into a stream of a small FMS through fs_flash and reads
 * them back, printing each transaction's annotated time. Exit status 0 when the bytes read are
 * the bytes written.
 */
#include <cstdio>
#include <cstring>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/sc/fs_flash.h"

extern "C" {
#include "models/flash/flash_sys.h"
}

using namespace sc_core;

struct cpu : sc_module { /* any initiator of the platform */
    tlm_utils::simple_initiator_socket<cpu> socket;
    bool same = false;
    SC_CTOR(cpu) : socket("socket")
    {
        SC_THREAD(run);
    }

    void io(tlm::tlm_command c, uint64_t addr, unsigned char *p, unsigned len)
    {
        tlm::tlm_generic_payload tx;
        sc_time delay = SC_ZERO_TIME;
        tx.set_command(c);
        tx.set_address(addr);
        tx.set_data_ptr(p);
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        socket->b_transport(tx, delay); /* loosely timed: the flash model's time comes back */
        std::printf("%s %u bytes: %s, %s\n", c == tlm::TLM_WRITE_COMMAND ? "write" : "read", len,
                    tx.get_response_string().c_str(), delay.to_string().c_str());
        wait(delay);
    }

    void run()
    {
        static unsigned char out[2 * 4096], in[2 * 4096];
        for (unsigned i = 0; i < sizeof(out); i++)
            out[i] = (unsigned char)(i * 7);
        /* stream 0, LPN 0, offset 0: the address map of fs_flash.h */
        io(tlm::TLM_WRITE_COMMAND, fs::fs_flash::addr(0, 0, 0, 4096), out, sizeof(out));
        io(tlm::TLM_READ_COMMAND, fs::fs_flash::addr(0, 0, 0, 4096), in, sizeof(in));
        same = !std::memcmp(in, out, sizeof(in));
    }
};

int sc_main(int, char **)
{
    /* The C models, built as any C program builds them (models/flash). */
    struct flash_cfg cfg;
    struct flash_sys sys;
    struct ftl_stream_cfg sc = {"data", 10, 100, 0, 100000, 86400, true, false};
    struct err e;
    flash_cfg_default(&cfg);
    cfg.geom.channels = 2; /* a small FMS: 2 channels x 1 die, 2 planes */
    cfg.geom.chips_per_chan = 1;
    cfg.geom.dies_per_chip = 1;
    cfg.geom.planes_per_die = 2;
    cfg.sw.store_payload = true;                           /* keep the bytes */
    if (flash_sys_init(&sys, &cfg, 672, 11, &sc, 1, &e)) { /* dies, spares, controller, stream */
        std::fprintf(stderr, "sc_minimal: %s\n", e.msg);
        return 1;
    }

    /* The SystemC side: the target, bound to the platform's initiator. */
    fs::fs_flash flash("flash", &sys.ctrl, {sys.s[0]});
    cpu c("cpu");
    c.socket.bind(flash.socket);
    sc_start();

    flash_sys_fini(&sys);
    std::printf("%s\n", c.same ? "read back what was written" : "MISMATCH");
    return c.same ? 0 : 1;
}

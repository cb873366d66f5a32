/*
 * cli_machine: the machine of the options --config, --set and --fault (cli.h), apart from the
 * option machinery of cli.c, which knows no model (its test links it alone).
 */
#include "models/machine/machine_ini.h"
#include "testbench/flashstream/cli.h"

#include <errno.h>
#include <stdio.h>

int cli_machine(const struct cli_cmd *cmd, const char *config, const char *const *sets, int n_sets,
                const char *bare_section, struct machine_ini **out)
{
    struct machine_ini *m;
    struct err e;
    int rc = machine_ini_create(&m, &e);

    *out = NULL;
    if (!rc && config)
        rc = machine_ini_load(m, config, &e);
    for (int i = 0; !rc && i < n_sets; i++)
        rc = machine_ini_set(m, sets[i], bare_section, &e);
    if (!rc && machine_ini_validate(m, &e))
        rc = err_prefix(&e, -EINVAL, "the machine of %s%s%s", config ? config : "",
                        config && n_sets ? " and " : "",
                        n_sets ? "--set" : (config ? "" : "the defaults"));
    if (rc) {
        fprintf(stderr, "flashstream %s: %s\n", cmd->name, e.msg);
        machine_ini_destroy(m);
        return -1;
    }
    *out = m;
    return 0;
}

int cli_faults(const struct cli_cmd *cmd, const struct flash_fault_cfg *base,
               const char *const *specs, int n, struct flash_fault_cfg *out)
{
    struct err e;

    if (base)
        *out = *base;
    else
        flash_fault_cfg_default(out);
    for (int i = 0; i < n; i++)
        if (flash_fault_parse(out, specs[i], &e)) {
            fprintf(stderr, "flashstream %s: %s\n", cmd->name, e.msg);
            return -1;
        }
    return 0;
}

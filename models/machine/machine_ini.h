/*
 * machine_ini: the machine description file. One INI file describes a machine: its Activation
 * Nodes, each node's cores, vector unit and tensor buffer, the Weight Node's optimizer unit, the
 * DMA, the fabric, every node's flash, the host link and the storage; every key of the
 * machine's part of struct machine_cfg (models/machine/machine.h) can be set.
 *
 * Contract
 * --------
 * Modelled:
 *   - One table of keys (sections of csim/cfgkey rows; the flash sections use
 *     flash_cfg_keys): section, key, type, range, unit, help and the field it goes to. The
 *     defaults are machine_cfg_default's. From the table come the parser, the dump of a
 *     configuration (machine_ini_write, which reads back to the same configuration), its
 *     stats.json object (machine_ini_stats) and the documentation (machine_ini_markdown,
 *     configs/README.md).
 *   - Sections: [machine], [core], [vector_unit], [optimizer], [dma], [tensor_buffer],
 *     [fabric], [flash] (both nodes' flash), [an_flash] and [wn_flash] (one node's, the same
 *     keys), [ssd] (both nodes' SSDs, models/ssd's ssd_cfg_keys), [an_ssd] and [wn_ssd], [host],
 *     [storage], and [faults] (flash faults on every node, a key per kind of the --fault
 *     grammar of models/flash/flash_fault.h, its value the kind's KEY=VALUE list; die and
 *     channel take several, separated by spaces). A file is applied line by line in order onto
 *     the machine already built (the defaults, or an earlier file), so a later line wins; a key
 *     given twice in one section of a file is an error. --set assignments
 *     ("section.key=value") are applied the same way, after the file.
 *   - Errors name the file and line ("configs/x.ini:12: ") or the assignment ("--set
 *     core.rows=0: "), then the key as section.key, the value and what is accepted: an unknown
 *     section or key (the message lists the accepted ones), a value that is not of the key's
 *     type or out of its range, a line that is neither "key = value" nor "[section]", a line
 *     longer than the parser's line buffer. machine_ini_validate checks the rules across keys
 *     (the flash geometry, the SSDs' with storage ssd-raid0, the tensor buffer, the fabric) on
 *     the result.
 *   - File syntax (libinih): "[section]" headings, "key = value" lines, comments on lines of
 *     their own starting with ';' or '#', and after a value following a space and ';'.
 * Not modelled: includes, variables, lists; keys of the training job (model, optimizer,
 * batch: the command's options); the fields every run derives (the DMA's SRAM map and tensor
 * buffer size, the fabric's node count, the tensor buffers' payload switch).
 * Units: as each key says (sizes take binary suffixes: "16GiB"; times are given in ns and
 * rates in MB/s = 10^6 bytes per second, decimals allowed).
 *
 * Errors (csim/err.h): functions that act return 0 or a negative errno (-EINVAL a bad file,
 * key or value, -ERANGE a value out of range, -ENOENT and other errnos of opening the file,
 * -ENOMEM) with one line in e.
 */
#ifndef MODELS_MACHINE_MACHINE_INI_H
#define MODELS_MACHINE_MACHINE_INI_H

#include <stdbool.h>
#include <stdio.h>

#include "csim/err.h"
#include "csim/stats.h"
#include "models/machine/machine.h"

/* A machine description being read: a machine_cfg, and which keys were given. */
struct machine_ini;

/* A description holding machine_cfg_default. 0 or -ENOMEM. */
int machine_ini_create(struct machine_ini **out, struct err *e);
void machine_ini_destroy(struct machine_ini *m);

/* The configuration so far: machine_cfg_default with every key given applied. */
const struct machine_cfg *machine_ini_cfg(const struct machine_ini *m);
/* Whether section.key was given (by a file or an assignment); [flash] gives both the
 * [an_flash] and the [wn_flash] key. */
bool machine_ini_given(const struct machine_ini *m, const char *section, const char *key);

/* The longest line a description file may have, its comment included, in characters: what
 * machine_ini_write writes always reads back. A --set's value may be as long. */
#define MACHINE_INI_LINE_MAX 4096

/* Apply the file at path. On error the description may hold the lines before the bad one. */
int machine_ini_load(struct machine_ini *m, const char *path, struct err *e);
/* Apply one assignment "section.key=value" (spaces around the parts are ignored); a key
 * without a section is bare_section's (NULL: an error). */
int machine_ini_set(struct machine_ini *m, const char *assignment, const char *bare_section,
                    struct err *e);
/* Every key in its range and the rules across keys: 0 or -EINVAL naming the keys. */
int machine_ini_validate(const struct machine_ini *m, struct err *e);

/* ---- outputs, for any configuration ---- */

/* Every key of c as an INI file that machine_ini_load reads back to the same keys, each line
 * with its range and unit in a comment; header: a comment line at the top (NULL: none). */
void machine_ini_write(FILE *f, const struct machine_cfg *c, const char *header);
/* Every key of c into the "config" object of stats.json (csim/stats.h): 0 or its error. */
int machine_ini_stats(const struct machine_cfg *c, struct stats *s, struct err *e);
/* The documentation: for each section a Markdown table of its keys (key, default with its
 * unit, accepted, description, field). */
void machine_ini_markdown(FILE *f);

/* The number of keys on which a and b differ (machine_ini_diff_each's); the first of them in
 * *first_section and *first_key (each may be NULL; NULL when none differs). */
size_t machine_ini_diff(const struct machine_cfg *a, const struct machine_cfg *b,
                        const char **first_section, const char **first_key);
/* A key on which two configurations differ, with its value in each (as a file writes them;
 * a [faults] key not set is "(none)"). */
typedef void (*machine_ini_diff_fn)(void *user, const char *section, const char *key,
                                    const char *value_a, const char *value_b);
/* Call fn for every key on which a and b differ, the set [faults] keys included but the seed
 * of the fault draws and a power loss (events of a run, not parts of the machine: a fallback to
 * a checkpoint reseeds the draws, a run resumed after a power loss has power), in the order of
 * the file; returns their number. */
size_t machine_ini_diff_each(const struct machine_cfg *a, const struct machine_cfg *b,
                             machine_ini_diff_fn fn, void *user);
/* c as one "section.key=value" line per key, the set [faults] keys of the machine included (not
 * the seed or a power loss): what a checkpoint records of the machine it ran on. Writes at most len
 * bytes (always terminated when len > 0) and returns the length of the whole text, as snprintf
 * does. */
size_t machine_ini_assignments(const struct machine_cfg *c, char *buf, size_t len);
/* Apply text's "section.key=value" lines (machine_ini_assignments') in order, as --set does:
 * 0 or the error of the first line refused. */
int machine_ini_apply(struct machine_ini *m, const char *text, struct err *e);
/* Every key of c in its range: 0 or -EINVAL naming the first that is not (with section). */
int machine_ini_check_keys(const struct machine_cfg *c, struct err *e);
/* Every row of the table well formed (csim/cfgkey: cfgkey_row_ok), keys unique in a section:
 * 0 or -EINVAL naming the bad row. A check of the program, for its tests. */
int machine_ini_check_table(struct err *e);

#endif

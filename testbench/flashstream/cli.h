/*
 * cli: the command-line options of the flashstream commands, one table per command.
 *
 * A row of the table is one long option: its name, the placeholder of its value, its help
 * lines, the heading it is listed under, and how its value is parsed and range-checked into
 * which field of the command's options struct. The same table drives getopt_long, the --help
 * text and the parsing, so an option cannot be accepted without being listed, nor listed with
 * another range than the one enforced.
 *
 * Every bad command line is refused with a message on stderr that names the option, the value
 * given and what is accepted; the caller exits with status 2. Checks across options (one
 * option's value against another's) are the command's, after cli_parse.
 */
#ifndef TESTBENCH_FLASHSTREAM_CLI_H
#define TESTBENCH_FLASHSTREAM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How a row's value is parsed, and the type of the field it is stored in. */
enum cli_kind {
    CLI_KIND_U64,      /* uint64_t: an integer in [lo, hi] (decimal, 0x hex or 0 octal) */
    CLI_KIND_SIZE,     /* uint64_t: bytes in [lo, hi]: "4096", "64k", "4KiB", "1g" (binary) */
    CLI_KIND_F32,      /* float: a finite number in [flo, fhi], rounded once (strtof) */
    CLI_KIND_ENUM,     /* int: the index of the value in names[0..n_names) */
    CLI_KIND_U64_LIST, /* uint64_t[max_n]: "256,128", 1..max_n decimal integers in [lo, hi];
                          their number goes to the int at count_off */
    CLI_KIND_STR,      /* const char *: the value itself; with ok, ok(value) must hold */
    CLI_KIND_STR_LIST, /* const char *[max_n]: each time the option is given its value is
                          appended; their number goes to the int at count_off */
    CLI_KIND_FLAG,     /* bool: no value; true when given */
    CLI_KIND_SET_INT,  /* int: no value; ival when given */
    CLI_KIND_SET_STR,  /* const char *: no value; sval (may be NULL) when given */
    CLI_KIND_CALL,     /* no field: call(opts, value), value NULL for a row without arg */
};

/* Returned by cli_parse and by a row's call: the command's work is done (help or a list
 * printed); exit 0. */
#define CLI_DONE 1

struct cli_opt {
    const char *name;  /* long option without "--"; NULL ends the table */
    const char *arg;   /* placeholder of the value in --help ("N", "FILE"); NULL: no value */
    const char *help;  /* lines separated by '\n'; NULL: an alias, left out of --help */
    const char *group; /* heading the option is listed under in --help; NULL: none */
    enum cli_kind kind;
    size_t off, size;         /* the field in the options struct (CLI_FIELD) */
    unsigned given;           /* bits or-ed into cli_parse's *given when the option is given */
    uint64_t lo, hi;          /* U64, SIZE, U64_LIST */
    float flo, fhi;           /* F32 */
    const char *const *names; /* ENUM */
    int n_names;
    bool nocase;                 /* ENUM: names match in any case */
    int max_n;                   /* U64_LIST, STR_LIST: most items */
    size_t count_off;            /* U64_LIST, STR_LIST: the int that holds the number of items */
    bool (*ok)(const char *val); /* STR: NULL accepts every string */
    bool once;            /* STR: given twice is an error (default NULL), not the last wins */
    const char *accepted; /* STR with ok: what is accepted, for the message */
    int ival;             /* SET_INT */
    const char *sval;     /* SET_STR */
    int (*call)(void *opts, const char *val); /* CALL: 0, -1 (message printed) or CLI_DONE */
};

/*
 * A row is written with these, so that it reads like its lines of --help:
 *
 *   {CLI_OPT("nodes", "N", "training", "Activation Nodes (default 4)"),
 *    CLI_U64(FIELD(nodes), 1, 64), .given = SET_NODES},
 *
 * where FIELD(m) is the command's CLI_FIELD(struct its_opts, m).
 */
#define CLI_FIELD(type, member) .off = offsetof(type, member), .size = sizeof(((type *)0)->member)
#define CLI_OPT(name_, arg_, group_, help_)                                                        \
    .name = (name_), .arg = (arg_), .group = (group_), .help = (help_)
/* Another name of an option, left out of --help. */
#define CLI_ALIAS(name_, arg_) .name = (name_), .arg = (arg_)

#define CLI_U64(field, lo_, hi_)  .kind = CLI_KIND_U64, field, .lo = (lo_), .hi = (hi_)
#define CLI_SIZE(field, lo_, hi_) .kind = CLI_KIND_SIZE, field, .lo = (lo_), .hi = (hi_)
#define CLI_F32(field, lo_, hi_)  .kind = CLI_KIND_F32, field, .flo = (lo_), .fhi = (hi_)
/* names_: an array of strings (its size is taken). */
#define CLI_ENUM(field, names_)                                                                    \
    .kind = CLI_KIND_ENUM, field, .names = (names_),                                               \
    .n_names = (int)(sizeof(names_) / sizeof((names_)[0]))
#define CLI_ENUM_NOCASE(field, names_)                                                             \
    .kind = CLI_KIND_ENUM, field, .names = (names_),                                               \
    .n_names = (int)(sizeof(names_) / sizeof((names_)[0])), .nocase = true
#define CLI_U64_LIST(field, count_off_, max_n_, lo_, hi_)                                          \
    .kind = CLI_KIND_U64_LIST, field, .count_off = (count_off_), .max_n = (max_n_), .lo = (lo_),   \
    .hi = (hi_)
#define CLI_STR(field) .kind = CLI_KIND_STR, field
#define CLI_STR_LIST(field, count_off_, max_n_)                                                    \
    .kind = CLI_KIND_STR_LIST, field, .count_off = (count_off_), .max_n = (max_n_)
/* ok_(value) must hold; accepted_ says what does, e.g. "a file name". */
#define CLI_STR_OK(field, ok_, accepted_)                                                          \
    .kind = CLI_KIND_STR, field, .ok = (ok_), .accepted = (accepted_)
#define CLI_FLAG(field)          .kind = CLI_KIND_FLAG, field
#define CLI_SET_INT(field, val_) .kind = CLI_KIND_SET_INT, field, .ival = (val_)
#define CLI_SET_STR(field, val_) .kind = CLI_KIND_SET_STR, field, .sval = (val_)
#define CLI_CALL(fn)             .kind = CLI_KIND_CALL, .call = (fn)

/* A command: its name, the text of --help above the options, and its options. */
struct cli_cmd {
    const char *name;  /* "train": messages start "flashstream train: " */
    const char *about; /* printed under the usage line; NULL: none */
    const struct cli_opt *opts;
};

/*
 * Parse the options argv[1..argc) (argv[0] is the command name) into opts, which holds the
 * defaults on entry. Options are taken in order, each overwriting its field, so the last of a
 * repeated option wins (a CALL row sees every one; a row marked once refuses a second); an option
 * may be abbreviated to a prefix that names only it (getopt_long). --help prints cli_help to
 * stdout. *given (may be NULL) receives the or of the given bits of the options given. Returns 0
 * (run the command), CLI_DONE (help or a CALL row's list printed: exit 0) or -1 (message printed:
 * exit 2).
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *opts, unsigned *given);

/* The --help text: the usage line, about, then each option under its heading. */
void cli_help(const struct cli_cmd *cmd, FILE *f);

struct machine_ini;

/*
 * The rows of the options that describe the machine, the same in every command that runs it
 * (train, perf, flashbench): --config into the field `config`, --set into `sets`/`n_sets` (at
 * most max), --fault into `faults`/`n_faults` of the command's options struct `type`; more_*
 * is added to a row's help (a string literal, "" for none).
 */
#define CLI_HELP_CONFIG                                                                            \
    "the machine description (configs/README.md; default: the\n"                                   \
    "built-in machine of configs/fc-mnist.ini; the paper's is\n"                                   \
    "configs/behemoth-paper.ini); one: --set changes its keys"
#define CLI_HELP_FAULT                                                                             \
    "model bit errors, ECC and read retries on every node's flash,\n"                              \
    "and inject a fault; repeatable (models/flash/README.md):\n"                                   \
    "rber:x=F, age:pe=N,days=D, program:rate=P, die:ch=C,die=D,at=T,\n"                            \
    "channel:ch=C,at=T, power:at=T, seed:n=S"
#define CLI_ROW_CONFIG(type, group, more_config)                                                   \
    {                                                                                              \
        CLI_OPT("config", "FILE", group, CLI_HELP_CONFIG more_config),                             \
            CLI_STR_OK(CLI_FIELD(type, config), cli_nonempty, "a file name"), .once = true         \
    }
#define CLI_ROW_SET(type, group, max, set_arg, more_set)                                           \
    {                                                                                              \
        CLI_OPT("set", set_arg, group,                                                             \
                "set a key of the machine after --config; repeatable" more_set),                   \
            CLI_STR_LIST(CLI_FIELD(type, sets), offsetof(type, n_sets), max)                       \
    }
#define CLI_ROW_FAULT(type, group, max, more_fault)                                                \
    {                                                                                              \
        CLI_OPT("fault", "SPEC", group, CLI_HELP_FAULT more_fault),                                \
            CLI_STR_LIST(CLI_FIELD(type, faults), offsetof(type, n_faults), max)                   \
    }

/*
 * The machine described by the options --config FILE (NULL: none) and --set (sets[0..n_sets),
 * each "section.key=value", applied after the file in their order; a key without a section is
 * bare_section's, NULL: none), with the rules across keys checked
 * (models/machine/machine_ini.h). 0 (*out: the description; machine_ini_destroy it) or -1
 * (message printed, naming the file and line or the --set: exit 2).
 */
int cli_machine(const struct cli_cmd *cmd, const char *config, const char *const *sets, int n_sets,
                const char *bare_section, struct machine_ini **out);

/* --fault SPEC... (models/flash/flash_fault.h) into *out, on top of base (the machine
 * description's [faults]; NULL: the defaults), so that a die or channel is added and the other
 * kinds override: 0, or -1 with the message printed naming the command. */
struct flash_fault_cfg;
int cli_faults(const struct cli_cmd *cmd, const struct flash_fault_cfg *base,
               const char *const *specs, int n, struct flash_fault_cfg *out);

/* For a STR row's ok: the value is not empty. */
bool cli_nonempty(const char *val);

/* Output paths (--out, --waves) are built in 512-byte buffers with a file name appended, so a
 * longer path is refused rather than cut short and written somewhere else. */
#define CLI_PATH_MAX 400
/* For a STR row's ok: 1 to CLI_PATH_MAX characters. */
bool cli_path_fits(const char *val);
/* mkdir -p: 0 or -errno. */
int cli_mkdir_p(const char *path);

/* In an output directory, locked (flock) while a run writes there: two runs into one directory
 * would mix their outputs (and train's resume histories). */
#define CLI_LOCK_NAME ".flashstream.lock"
/* Lock directory dir (it exists) for command cmd ("train") until *fd is closed: 0, or -1 with
 * the message printed (another run holds it: "give another --out, or wait for that run"). */
int cli_lock_dir(const char *cmd, const char *dir, int *fd);

/* Wall-clock seconds from a monotonic clock. */
double cli_wall_s(void);

#endif

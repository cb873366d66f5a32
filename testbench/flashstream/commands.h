/* The commands of the flashstream program, one function each. */
#ifndef TESTBENCH_FLASHSTREAM_COMMANDS_H
#define TESTBENCH_FLASHSTREAM_COMMANDS_H

/* Each returns the process exit status. argv[0] is the command name. */
int cmd_cosim(int argc, char **argv);
int cmd_flashbench(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_perf(int argc, char **argv);
int cmd_train(int argc, char **argv);

#endif

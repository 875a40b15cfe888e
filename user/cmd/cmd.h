/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands, each in its cmd_NAME.c, dispatched by main.c.
 */
#ifndef IOLAT_CMD_H
#define IOLAT_CMD_H

#include "out/output.h"

int cmd_record(int argc, const char **argv);
int cmd_trace(int argc, const char **argv);
int cmd_info(int argc, const char **argv);
int cmd_stat(int argc, const char **argv);
int cmd_clocktest(int argc, const char **argv);
int cmd_nvme(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_plot(int argc, const char **argv);
int cmd_top(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_watch(int argc, const char **argv);

#endif /* IOLAT_CMD_H */

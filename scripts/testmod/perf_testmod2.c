// SPDX-License-Identifier: GPL-2.0
/* A second module, so that tests can change the set of loaded modules. */
#include "perf_testmod.c"

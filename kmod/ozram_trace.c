// SPDX-License-Identifier: GPL-2.0
/*
 * The one file that instantiates ozram's tracepoints (ozram_trace.h); every
 * other file includes the header only to call them.
 */
#define CREATE_TRACE_POINTS
#include "ozram_trace.h"

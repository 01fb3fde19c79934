/* topogen_schema.h: the short names the settings schema's table and its
 * parsers use (private to topogen_schema.c and topogen_settings.c; the
 * public names are topogen_settings.h's).
 */
#ifndef TOPOGEN_SCHEMA_H
#define TOPOGEN_SCHEMA_H

#include <stddef.h>

#include "topogen_settings.h"

#define MAX_ROUNDS 10000000

/* the table's short names */
#define GEN TOPOGEN_M_GEN
#define EVAL TOPOGEN_M_EVAL
#define PLAN TOPOGEN_M_PLAN
#define ALL TOPOGEN_M_ALL
#define BOTH (GEN | EVAL)
#define F_SIZE TOPOGEN_F_SIZE
#define F_U64 TOPOGEN_F_U64
#define F_SECONDS TOPOGEN_F_SECONDS
#define F_KIND TOPOGEN_F_KIND
#define F_WEIGHTS TOPOGEN_F_WEIGHTS
#define F_OBJECTIVE TOPOGEN_F_OBJECTIVE
#define F_INIT TOPOGEN_F_INIT
#define F_FORMAT TOPOGEN_F_FORMAT
#define F_PATH TOPOGEN_F_PATH
#define F_FLAG TOPOGEN_F_FLAG
#define F_SOLVER TOPOGEN_F_SOLVER
#define F_NET TOPOGEN_F_NET
#define F_GAMMA TOPOGEN_F_GAMMA
#define F_LABELS TOPOGEN_F_LABELS
#define F_REAL TOPOGEN_F_REAL
#define F_INTER TOPOGEN_F_INTER
#define F_CWEIGHTS TOPOGEN_F_CWEIGHTS
#define F_ALLREDUCE TOPOGEN_F_ALLREDUCE
#define F_DIR TOPOGEN_F_DIR
#define F_TARGET TOPOGEN_F_TARGET
#define F_PARTITION TOPOGEN_F_PARTITION
#define F_PLATFORM TOPOGEN_F_PLATFORM
#define F_WORD TOPOGEN_F_WORD

/* which header records a setting (topogen_flag.header) */
enum { H_NONE, H_ALL, H_LEARNED, H_DATA };

#define OFF(f) offsetof(topogen_config, f)

#endif

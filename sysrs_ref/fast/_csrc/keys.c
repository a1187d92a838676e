/* UCB-E / SyUCB-E keys (sysrs_ref.fast._ucb_runs.Runs) for every score and sum dtype: keys.inc, once each. */
#include "common.h"

/* Positions made between two looks at the floor (a loop without an exit in every step runs faster). */
#define STRIDE 64
/* Lowerings of the floor before ucb_keys_upto makes the remaining rows whole. */
#define LOWERINGS 40

#define AT int64_t /* integer numerators, summed exactly */
#define VT int8_t
#define ST int32_t
#define SUFFIX i8_i32
#include "keys.inc"
#define VT int16_t
#define ST int32_t
#define SUFFIX i16_i32
#include "keys.inc"
#define VT int32_t
#define ST int32_t
#define SUFFIX i32_i32
#include "keys.inc"
#define VT int64_t
#define ST int32_t
#define SUFFIX i64_i32
#include "keys.inc"
#define VT int8_t
#define ST int64_t
#define SUFFIX i8_i64
#include "keys.inc"
#define VT int16_t
#define ST int64_t
#define SUFFIX i16_i64
#include "keys.inc"
#define VT int32_t
#define ST int64_t
#define SUFFIX i32_i64
#include "keys.inc"
#define VT int64_t
#define ST int64_t
#define SUFFIX i64_i64
#include "keys.inc"
#undef AT

#define AT double /* float scores, added left to right */
#define VT double
#define ST double
#define SUFFIX f64_f64
#include "keys.inc"
#undef AT

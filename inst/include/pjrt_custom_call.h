/* pjrt_custom_call.h: the C interface of pjrt's custom-call handlers.
 *
 * A program runs `stablehlo.custom_call @name(...)` by calling the handler registered under
 * `name`. Packages write handlers in C or C++ against this header (installed with pjrt:
 * `system.file("include", package = "pjrt")`), hand R an external pointer whose address is
 * the handler function, and register it with `pjrt_register_custom_call()`.
 *
 * The call. The runtime fills a `pjrt_custom_call_frame` and calls the handler once per
 * execution of the op, on the thread that called `pjrt_execute()`. An executable may be run
 * from several threads at once, so a handler must be reentrant. It must not call the R API
 * in a way that can raise an R error (a longjmp through the runtime would leak its memory).
 *
 * Buffers. Each operand and result is a `pjrt_custom_call_buffer`: a data pointer, a dtype
 * code (`PJRT_CC_*` below), a rank, the dims (StableHLO's logical shape, dimension 0 first)
 * and a layout. The elements are dense, in the layout the op declares for that buffer in
 * `operand_layouts` / `result_layouts` (minor-to-major: `layout[0]` is the dimension whose
 * index changes fastest in memory); without those attributes every buffer is row-major
 * (`layout` = rank-1, ..., 1, 0). `layout` always holds `rank` entries. Operands are
 * read-only. Results are allocated by the runtime, uninitialised: the handler must write
 * every element. pred (i1) elements are bytes 0 / 1, and a handler writing pred must store
 * only 0 or 1. Complex elements are pairs (real, imaginary).
 *
 * Attributes. When `backend_config` is a dictionary (api_version 4), its entries of kinds
 * integer, float, bool and string arrive in `attributes`; other entries (nested
 * dictionaries, lists) are left out. When it is a string, it arrives in `backend_config`
 * (otherwise `backend_config` is ""). `api_version` and `has_side_effect` are as written
 * (defaults 1 and false).
 *
 * Errors. A handler returns 0 on success. Otherwise it writes a message (one sentence,
 * NUL-terminated, at most PJRT_CC_ERROR_CAPACITY bytes with the NUL) into `error` and
 * returns nonzero; the execution then fails with an R error that names the target and
 * carries the message. Results are discarded.
 *
 * Versions. `abi_version` is PJRT_CUSTOM_CALL_ABI_VERSION of the pjrt that made the call; a
 * handler built against another version should refuse the call.
 */
#ifndef PJRT_CUSTOM_CALL_H
#define PJRT_CUSTOM_CALL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_CUSTOM_CALL_ABI_VERSION 1
#define PJRT_CC_ERROR_CAPACITY 512

/* Element types (dtype codes). The values are fixed: new types get new numbers. */
enum pjrt_custom_call_dtype {
  PJRT_CC_PRED = 1, /* 1 byte, 0 or 1 */
  PJRT_CC_I8 = 2,
  PJRT_CC_I16 = 3,
  PJRT_CC_I32 = 4,
  PJRT_CC_I64 = 5,
  PJRT_CC_U8 = 6,
  PJRT_CC_U16 = 7,
  PJRT_CC_U32 = 8,
  PJRT_CC_U64 = 9,
  PJRT_CC_F16 = 10,  /* IEEE binary16 bits */
  PJRT_CC_BF16 = 11, /* bfloat16 bits */
  PJRT_CC_F32 = 12,
  PJRT_CC_F64 = 13,
  PJRT_CC_C64 = 14,  /* two floats */
  PJRT_CC_C128 = 15, /* two doubles */
  PJRT_CC_F8E4M3FN = 16, /* 1 byte: 4 exponent bits (bias 7), 3 mantissa bits, no Inf */
  PJRT_CC_F8E5M2 = 17    /* 1 byte: 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like */
};

typedef struct {
  void* data;           /* const for operands; NULL when the buffer has no elements */
  int32_t dtype;        /* a pjrt_custom_call_dtype */
  int32_t rank;
  const int64_t* dims;  /* rank entries */
  const int64_t* layout; /* rank entries, minor-to-major */
} pjrt_custom_call_buffer;

enum pjrt_custom_call_attribute_kind {
  PJRT_CC_ATTR_INT = 1,
  PJRT_CC_ATTR_FLOAT = 2,
  PJRT_CC_ATTR_BOOL = 3,
  PJRT_CC_ATTR_STRING = 4
};

typedef struct {
  const char* name;
  int32_t kind;        /* a pjrt_custom_call_attribute_kind */
  int64_t integer;     /* INT; BOOL as 0 / 1 */
  double number;       /* FLOAT */
  const char* string;  /* STRING (NUL-terminated), else "" */
} pjrt_custom_call_attribute;

typedef struct {
  int32_t abi_version;
  const char* target_name;
  int32_t api_version;
  int32_t has_side_effect;
  int32_t num_operands;
  const pjrt_custom_call_buffer* operands;
  int32_t num_results;
  const pjrt_custom_call_buffer* results; /* the data they point to is the handler's to write */
  int32_t num_attributes;
  const pjrt_custom_call_attribute* attributes;
  const char* backend_config;
  char* error; /* PJRT_CC_ERROR_CAPACITY bytes */
} pjrt_custom_call_frame;

/* The handler: 0 on success, nonzero (with a message in frame->error) on failure. */
typedef int (*pjrt_custom_call_handler)(const pjrt_custom_call_frame* frame);

#ifdef __cplusplus
}
#endif

#endif /* PJRT_CUSTOM_CALL_H */

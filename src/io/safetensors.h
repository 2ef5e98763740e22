/* safetensors.h -- reading a checkpoint's safetensors headers (never its tensor data). */
#ifndef ZS_SAFETENSORS_H
#define ZS_SAFETENSORS_H

#include <stdint.h>

#include "core/error.h"
#include "io/weights.h"

/* A header may be at most this long: DeepSeek-V3's largest shard header is about 1 MiB. */
#define SAFETENSORS_HEADER_MAX (100.0 * 1024 * 1024)

/* Read the checkpoint at path and count its tensors (weights_count, layers at or past
 * num_layers as extra; 0: none). path is one .safetensors file; a folder, every *.safetensors
 * in it, in name order; or a model.safetensors.index.json (any *.json), whose weight_map names
 * the shards beside it, each read once, its metadata.total_size kept. Only the 8-byte length
 * and the JSON header of each file are read. Fails with ZS_ERR_INPUT naming the file and what
 * was expected: a missing or truncated file, a header length of 0, over
 * SAFETENSORS_HEADER_MAX or past the end of the file, malformed JSON, an unknown dtype, a
 * negative or overflowing shape, data_offsets outside the data or not dtype size x elements,
 * a tensor in two files, an index whose weight_map is missing, names a path or a tensor its
 * shard lacks; ZS_ERR_NOMEM when out of memory. */
int safetensors_load(const char *path, int64_t num_layers, wt_summary *out, zs_error *err);

/* Check one header's JSON text (len bytes; data_size bytes of tensor data follow it in the
 * file) as safetensors_load does, and count its tensors into out. For the fuzzer and tests;
 * file names the source in messages. Fails as safetensors_load does. */
int safetensors_parse(
    const char *file, const char *json, size_t len, uint64_t data_size, wt_summary *out, zs_error *err);

#endif

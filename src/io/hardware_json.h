/* hardware_json.h -- loading a hardware profile from JSON (schema in hardware/README.md). */
#ifndef ZS_HARDWARE_JSON_H
#define ZS_HARDWARE_JSON_H

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/hardware.h"

/* Load and validate a hardware profile. Sections gpu, node, intra_node, inter_node and
 * host_link are required; memory_overhead, price and efficiency are optional (absent: no
 * overhead, no price, line-rate efficiency). Fails with ZS_ERR_INPUT; the message starts with
 * the path and names the field and what was expected. */
int hardware_load(const char *path, hardware *hw, zs_error *err);

/* The same from a parsed object; `origin` names the input in messages. */
int hardware_from_json(const cJSON *root, const char *origin, hardware *hw, zs_error *err);

/* Set the field stored at offsetof(hardware, member) in root to hw's value, replacing the old
 * value or appending the key (and creating its section). Fails with ZS_ERR_INPUT when the value
 * is out of the field's bounds (the message names it: the profile would not load back), no
 * field lives at offset, or a member on the section's path is not an object; with ZS_ERR_NOMEM
 * when out of memory. */
int hardware_json_set(cJSON *root, const hardware *hw, size_t offset, zs_error *err);

/* Make sure root has the object at a dotted path (created empty at the end when absent).
 * Fails with ZS_ERR_INPUT when a member of that name is not an object, ZS_ERR_NOMEM when out of
 * memory. */
int hardware_json_section(cJSON *root, const char *path, zs_error *err);

#endif

/* hub.h -- models by Hugging Face Hub id: "org/name[@revision]" to a config.json on disk, from
 * the local Hugging Face cache as transformers lays it out, else downloaded into that cache. */
#ifndef ZS_HUB_H
#define ZS_HUB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* A repository id and revision, as parsed from "org/name[@revision]". */
typedef struct hub_ref {
    char org[97];  /* [A-Za-z0-9._-], at most 96 bytes, as the Hub allows */
    char name[97];
    char rev[256]; /* "main" when none was given; a branch, tag, refs/pr/N or a commit hash */
} hub_ref;

/* Parse id as "org/name[@revision]". False (r untouched or partial) when it is not one: no '/'
 * or more than one, a path-like start ('.', '/', '~'), a ".json" ending, characters the Hub
 * does not allow in a repository id, or a revision with "..", a leading or trailing '/', or
 * characters other than [A-Za-z0-9._/-]. Pure: looks at no file. */
bool hub_parse(const char *id, hub_ref *r);

/* True when rev is a 40-hex-digit commit hash. */
bool hub_is_commit(const char *rev);

/* The cache directory: $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub,
 * else $HOME/.cache/huggingface/hub. Fails with ZS_ERR_INPUT when none can be formed. */
int hub_cache_dir(char *out, size_t len, zs_error *err);

/* True when HF_HUB_OFFLINE is set to 1 (or ON, YES, TRUE, any case). */
bool hub_offline(void);

/* The cached config.json for r in cache: models--org--name/snapshots/<hash>/config.json, the
 * hash read from refs/<rev>, or rev itself when it is a commit hash. True, with the path in
 * out, when that file is readable; false otherwise. Never fails otherwise. */
bool hub_cached(const hub_ref *r, const char *cache, char *out, size_t len);

/* Download config.json for r from $HF_ENDPOINT (default https://huggingface.co) at
 * {endpoint}/{org}/{name}/resolve/{rev}/config.json, following redirects, with
 * "Authorization: Bearer $HF_TOKEN" when HF_TOKEN is set, and write it into cache as
 * transformers would: snapshots/<X-Repo-Commit, else rev>/config.json and refs/<rev> (not
 * when rev is a commit hash), each through a temporary file renamed into place, so an
 * interrupted download leaves nothing behind. The body must be a JSON object.
 * Returns ZS_OK with the snapshot path in out, or fails with one line: ZS_ERR_INPUT for
 * 401/403 (gated or private), 404 (no such repository or revision), another HTTP status or
 * a body that is not JSON; ZS_ERR_IO for a network failure (curl's message) or a cache that
 * cannot be written. Never prints. */
int hub_download(const hub_ref *r, const char *cache, char *out, size_t len, zs_error *err);

#endif

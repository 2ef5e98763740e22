/* test_hub.c -- Hub ids: parsing org/name[@revision], the cache directory from the environment,
 * and finding a config.json in a cache laid out as transformers does (no network here:
 * tests/cli/hub.sh downloads from a loopback stand-in). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/hub.h"
#include "test.h"

static void parse(void)
{
    hub_ref r;
    CHECK(hub_parse("meta-llama/Meta-Llama-3-8B", &r));
    CHECK_STREQ(r.org, "meta-llama");
    CHECK_STREQ(r.name, "Meta-Llama-3-8B");
    CHECK_STREQ(r.rev, "main");
    CHECK(hub_parse("Qwen/Qwen2.5-7B@v1.0", &r));
    CHECK_STREQ(r.name, "Qwen2.5-7B");
    CHECK_STREQ(r.rev, "v1.0");
    CHECK(hub_parse("a/b@refs/pr/1", &r));
    CHECK_STREQ(r.rev, "refs/pr/1");
    /* paths, files and ids the Hub would not accept are not Hub ids */
    const char *no[] = {"llama-3-8b", "./a/b", "/a/b", "~/a/b", "a/b.json", "a/b/c", "a/", "/b", "a/b@",
        "a/b@../x", "a/b@x/", "a/b@/x", "a/b@x//y", "a/b@x y", "a--c/b", "a/b..c", "-a/b", "a/b@.", "a/b@./x",
        "a/b@x/.", "a b/c", NULL};
    for (int i = 0; no[i]; i++) test_report(!hub_parse(no[i], &r), __FILE__, __LINE__, "%s parsed", no[i]);
    CHECK(hub_is_commit("0123456789abcdef0123456789abcdef01234567"));
    CHECK(!hub_is_commit("0123456789ABCDEF0123456789abcdef01234567"));
    CHECK(!hub_is_commit("0123456789abcdef"));
    CHECK(!hub_is_commit("main"));
}

static void restore(const char *name, char *saved)
{
    if (saved) setenv(name, saved, 1), free(saved);
    else unsetenv(name);
}

static char *save(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

static void cache_dir(void)
{
    char *c = save("HF_HUB_CACHE"), *h = save("HF_HOME"), *x = save("XDG_CACHE_HOME"), *home = save("HOME");
    char out[4096];
    zs_error err = {0};
    setenv("HF_HUB_CACHE", "/c", 1), setenv("HF_HOME", "/h", 1), setenv("XDG_CACHE_HOME", "/x", 1);
    setenv("HOME", "/home/u", 1);
    CHECK(hub_cache_dir(out, sizeof out, &err) == ZS_OK && strcmp(out, "/c") == 0);
    unsetenv("HF_HUB_CACHE");
    CHECK(hub_cache_dir(out, sizeof out, &err) == ZS_OK && strcmp(out, "/h/hub") == 0);
    unsetenv("HF_HOME");
    CHECK(hub_cache_dir(out, sizeof out, &err) == ZS_OK && strcmp(out, "/x/huggingface/hub") == 0);
    unsetenv("XDG_CACHE_HOME");
    CHECK(hub_cache_dir(out, sizeof out, &err) == ZS_OK);
    CHECK_STREQ(out, "/home/u/.cache/huggingface/hub");
    unsetenv("HOME");
    CHECK(hub_cache_dir(out, sizeof out, &err) == ZS_ERR_INPUT);
    restore("HF_HUB_CACHE", c), restore("HF_HOME", h), restore("XDG_CACHE_HOME", x), restore("HOME", home);
    char *o = save("HF_HUB_OFFLINE");
    setenv("HF_HUB_OFFLINE", "1", 1);
    CHECK(hub_offline());
    setenv("HF_HUB_OFFLINE", "True", 1);
    CHECK(hub_offline());
    setenv("HF_HUB_OFFLINE", "0", 1);
    CHECK(!hub_offline());
    restore("HF_HUB_OFFLINE", o);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fputs(text, f), fclose(f);
}

static void cached(void)
{
    char dir[] = "/tmp/zs-hub-XXXXXX", p[4096], out[4096];
    CHECK(mkdtemp(dir) != NULL);
    const char *h = "0123456789abcdef0123456789abcdef01234567";
    snprintf(p, sizeof p, "%s/models--o--n", dir), mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models--o--n/refs", dir), mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models--o--n/snapshots", dir), mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models--o--n/snapshots/%s", dir, h), mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models--o--n/snapshots/%s/config.json", dir, h), write_text(p, "{}");
    snprintf(p, sizeof p, "%s/models--o--n/refs/main", dir), write_text(p, h);
    snprintf(p, sizeof p, "%s/models--o--n/refs/evil", dir), write_text(p, "../../x");
    hub_ref r;
    CHECK(hub_parse("o/n", &r) && hub_cached(&r, dir, out, sizeof out));
    snprintf(p, sizeof p, "%s/models--o--n/snapshots/%s/config.json", dir, h);
    CHECK_STREQ(out, p);
    snprintf(p, sizeof p, "o/n@%s", h);
    CHECK(hub_parse(p, &r) && hub_cached(&r, dir, out, sizeof out));
    CHECK(hub_parse("o/n@v2", &r) && !hub_cached(&r, dir, out, sizeof out));
    CHECK(hub_parse("o/n@evil", &r) && !hub_cached(&r, dir, out, sizeof out));
    CHECK(hub_parse("o/m", &r) && !hub_cached(&r, dir, out, sizeof out));
    snprintf(p, sizeof p, "rm -rf '%s'", dir);
    CHECK(system(p) == 0);
}

void suite_hub(void)
{
    RUN_TEST(parse);
    RUN_TEST(cache_dir);
    RUN_TEST(cached);
}

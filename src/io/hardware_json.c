/* hardware_json.c -- hardware profile JSON to a hardware struct and back, through hardware.c's
 * field table. */
#include "io/hardware_json.h"

#include <stdio.h>
#include <string.h>

#include "io/jsonutil.h"

/* "gpu.peak_flops" -> root["gpu"]["peak_flops"]; NULL when absent. */
static const cJSON *section(const cJSON *root, const char *path)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *o = root;
    char *save = NULL; /* strtok_r: the library loads profiles from several threads at once */
    for (char *tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save))
        o = cJSON_GetObjectItemCaseSensitive(o, tok);
    return o && cJSON_IsObject(o) ? o : NULL;
}

static int from_json(const cJSON *root, hardware *hw, zs_error *err)
{
    memset(hw, 0, sizeof *hw);
    /* Absent efficiencies mean line rate: the profile claims nothing it has not measured. */
    hw->matmul_max_fraction = hw->hbm_fraction = 1;
    hw->intra.efficiency = hw->inter.efficiency = hw->host.efficiency = 1;
    bool have;
    if (json_get_text(root, "name", hw->name, sizeof hw->name, &have, err)) return err->code;
    if (json_get_text(root, "description", hw->description, sizeof hw->description, &have, err))
        return err->code;
    static const char *const required[] = {"gpu", "node", "intra_node", "inter_node", "host_link"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!section(root, required[i]))
            return zs_fail(err, ZS_ERR_INPUT, "missing section \"%s\" (an object)", required[i]);
    const cJSON *gpu = section(root, "gpu");
    if (json_get_text(gpu, "model", hw->gpu_model, sizeof hw->gpu_model, &have, err)) return err->code;
    size_t nf;
    const hw_field *fields = hardware_fields(&nf);
    for (size_t i = 0; i < nf; i++) {
        const hw_field *f = &fields[i];
        const cJSON *sec = section(root, f->section);
        have = false;
        double v = 0;
        double lo = f->flags & HW_ZERO_NONE ? 0 : f->min; /* 0 is a value here: "none" */
        if (sec && json_get_number(sec, f->key, lo, f->max, &v, &have, err)) {
            zs_error_prefix(err, f->section); /* "gpu: field "hbm_bytes": ..." */
            return err->code;
        }
        if (!have) {
            if (f->flags & HW_REQUIRED)
                return zs_fail(err, ZS_ERR_INPUT, "missing field \"%s.%s\" (a number from %g to %g)",
                    f->section, f->key, lo, f->max);
            continue;
        }
        hardware_field_set(hw, f, v);
    }
    const cJSON *intra = section(root, "intra_node"), *inter = section(root, "inter_node"),
                *host = section(root, "host_link");
    if (json_get_string(intra, "kind", hw->intra.kind, sizeof hw->intra.kind, &have, err)) return err->code;
    if (json_get_string(inter, "kind", hw->inter.kind, sizeof hw->inter.kind, &have, err)) return err->code;
    if (json_get_string(host, "kind", hw->host.kind, sizeof hw->host.kind, &have, err)) return err->code;
    /* "frameworks": {"deepspeed": {"gemm_efficiency": 0.8, "step_overhead_seconds": 0.3, ..}}:
     * the values `calibrate --runs --framework` fitted on this system. */
    const cJSON *fws = section(root, "frameworks"), *fw;
    cJSON_ArrayForEach(fw, fws)
    {
        if (!cJSON_IsObject(fw) || !fw->string)
            return zs_fail(
                err, ZS_ERR_INPUT, "section \"frameworks\": each member is an object named by its framework");
        if (hw->n_fw_fits == HW_MAX_FRAMEWORK_FITS)
            return zs_fail(
                err, ZS_ERR_INPUT, "section \"frameworks\": at most %d frameworks", HW_MAX_FRAMEWORK_FITS);
        hw_framework_fit *f = &hw->fw_fits[hw->n_fw_fits];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", fw->string);
        int64_t runs = 0;
        if (json_get_number(fw, "gemm_efficiency", 1e-3, 2, &f->gemm_efficiency, &have, err) ||
            (!have &&
                zs_fail(
                    err, ZS_ERR_INPUT, "field \"gemm_efficiency\": missing (a factor from 0.001 to 2)")) ||
            json_get_number(fw, "gemm_efficiency_stderr", 0, 2, &f->gemm_stderr, &have, err) ||
            json_get_number(fw, "step_overhead_seconds", 0, 3600, &f->step_overhead, &have, err) ||
            json_get_number(fw, "step_overhead_stderr", 0, 3600, &f->overhead_stderr, &have, err) ||
            json_get_int(fw, "runs", 0, 100000000, &runs, &have, err)) {
            char where[64];
            snprintf(where, sizeof where, "frameworks.%.40s", fw->string);
            zs_error_prefix(err, where);
            return err->code;
        }
        f->runs = (int)runs;
        hw->n_fw_fits++;
    }
    /* Until a profile measures its host memory (zerobench membw), assume it streams as well
     * as the GPU's HBM does. */
    if (hw->host_memory_fraction <= 0) hw->host_memory_fraction = hw->hbm_fraction;
    return hardware_validate(hw, err);
}

int hardware_from_json(const cJSON *root, const char *origin, hardware *hw, zs_error *err)
{
    int rc = from_json(root, hw, err);
    if (rc) zs_error_prefix(err, origin);
    return rc;
}

int hardware_load(const char *path, hardware *hw, zs_error *err)
{
    cJSON *root;
    if (json_load_object(path, &root, err)) return err->code;
    int rc = hardware_from_json(root, path, hw, err);
    cJSON_Delete(root);
    if (rc == ZS_OK && hw->name[0] == '\0') {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        snprintf(hw->name, sizeof hw->name, "%.*s", (int)strcspn(base, "."), base);
    }
    return rc;
}

/* root's object at a dotted path, created when absent. Fails with ZS_ERR_INPUT when a member of
 * that name is not an object, ZS_ERR_NOMEM when memory runs out. */
static int section_make(cJSON *root, const char *path, cJSON **out, zs_error *err)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *o = root;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
        cJSON *next = cJSON_GetObjectItemCaseSensitive(o, tok);
        if (next && !cJSON_IsObject(next))
            return zs_fail(err, ZS_ERR_INPUT, "section \"%s\": expected an object", path);
        if (!next && !(next = cJSON_AddObjectToObject(o, tok)))
            return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
        o = next;
    }
    *out = o;
    return ZS_OK;
}

int hardware_json_section(cJSON *root, const char *path, zs_error *err)
{
    cJSON *sec;
    return section_make(root, path, &sec, err);
}

int hardware_json_set(cJSON *root, const hardware *hw, size_t offset, zs_error *err)
{
    const hw_field *f = hardware_field_at(offset);
    if (!f) return zs_fail(err, ZS_ERR_INPUT, "no profile field at offset %zu", offset);
    double v = hardware_field_get(hw, f);
    if (hardware_field_check(f, v, err)) return err->code;
    cJSON *sec;
    if (section_make(root, f->section, &sec, err)) return err->code;
    cJSON *old = cJSON_GetObjectItemCaseSensitive(sec, f->key);
    if (old && cJSON_IsNumber(old))
        cJSON_SetNumberValue(old, v);
    else if (old) {
        cJSON *num = cJSON_CreateNumber(v);
        if (!num || !cJSON_ReplaceItemInObjectCaseSensitive(sec, f->key, num)) {
            cJSON_Delete(num);
            return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
        }
    } else if (!cJSON_AddNumberToObject(sec, f->key, v)) {
        return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    return ZS_OK;
}

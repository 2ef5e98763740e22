/* response.c -- the request API's refusal as JSON, one writer for zs_call and zerosim serve. */
#include "api/response.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

char *api_error_json(int code, const char *msg)
{
    cJSON *o = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(o, "error");
    if (e) {
        cJSON_AddNumberToObject(e, "code", code);
        cJSON_AddStringToObject(e, "message", msg);
    }
    char *text = e ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text) return NULL;
    char *copy = strdup(text); /* freed with free() (zs_free), whatever cJSON's allocator */
    cJSON_free(text);
    return copy;
}

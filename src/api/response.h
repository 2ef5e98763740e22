/* response.h -- the request API's refusal, {"error": {"code", "message"}}, for zs_call and serve. */
#ifndef ZS_API_RESPONSE_H
#define ZS_API_RESPONSE_H

/* {"error": {"code": code, "message": msg}} as a new string to free with free(); NULL when out
 * of memory. */
char *api_error_json(int code, const char *msg);

#endif
